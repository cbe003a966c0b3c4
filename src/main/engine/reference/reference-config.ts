/**
 * Configuration of the session-reference service (SESSION-REFERENCE.md §3) as one schema: its type, defaults and
 * rules. Resolved once at construction: absent or `null` keys take their defaults, then each key is validated in
 * order, and the ceiling on `maxReferences` only once every key is a positive safe integer. The composition's
 * configuration (`main/engine/config`) validates the same keys with these same rules.
 */
import { z } from 'zod';
import { firstConfigIssue, nullAsAbsent, positiveSafeInteger } from '../../../protocol/config-schema.js';
import { configMaxReferencesTooLargeError, configNotPositiveSafeIntegerError } from '../../../protocol/reference-errors.js';
import type { SessionReferenceError } from '../../../protocol/reference-errors.js';

/** The hard ceiling on references per message. */
export const MAX_REFERENCES = 3;
/** Default number of candidates discovery returns. */
export const DEFAULT_CANDIDATE_LIMIT = 50;
/** Default byte budget of one source's tag-safe JSON. */
export const DEFAULT_MAX_REFERENCE_BYTES = 65536;

/** The reason of the ceiling rule, as SESSION-REFERENCE.md §3 words it. */
export const MAX_REFERENCES_CEILING_REASON = `must not exceed ${MAX_REFERENCES}`;

/**
 * The rule of each key, without defaults: a positive safe integer (the ceiling of `maxReferences` is
 * {@link MAX_REFERENCES_CEILING_REASON}, checked after the type). The composition reuses them.
 */
export const referenceKeyRules = {
  maxReferences: positiveSafeInteger(),
  candidateLimit: positiveSafeInteger(),
  maxReferenceBytes: positiveSafeInteger(),
} as const;

/** The schema, keys in dsh's order. */
const sessionReferenceConfigSchema = z
  .object({
    maxReferences: nullAsAbsent(referenceKeyRules.maxReferences.default(MAX_REFERENCES)),
    candidateLimit: nullAsAbsent(referenceKeyRules.candidateLimit.default(DEFAULT_CANDIDATE_LIMIT)),
    maxReferenceBytes: nullAsAbsent(referenceKeyRules.maxReferenceBytes.default(DEFAULT_MAX_REFERENCE_BYTES)),
  })
  // A refinement of the object runs after its keys, so the ceiling is reported only when every key is well typed.
  .refine((config) => config.maxReferences <= MAX_REFERENCES, { path: ['maxReferences'], error: MAX_REFERENCES_CEILING_REASON });

/** What a host may pass; values are validated, not trusted. */
export interface SessionReferenceConfigInput {
  readonly maxReferences?: unknown;
  readonly candidateLimit?: unknown;
  readonly maxReferenceBytes?: unknown;
}

/** The resolved configuration, keys in dsh's order. */
export type SessionReferenceConfig = Readonly<z.output<typeof sessionReferenceConfigSchema>>;

/** The §3 error of the first key that failed. */
function referenceConfigError(key: string, reason: string): SessionReferenceError {
  return reason === MAX_REFERENCES_CEILING_REASON ? configMaxReferencesTooLargeError() : configNotPositiveSafeIntegerError(key);
}

/**
 * Builds `{maxReferences, candidateLimit, maxReferenceBytes}` and validates each key in that order.
 * @param input - the host's values; absent or `null` keys take their defaults.
 * @returns the frozen configuration.
 * @throws SessionReferenceError `SESSION_REFERENCE_INVALID_CONFIG` naming the first bad key (§3).
 */
export function resolveReferenceConfig(input: SessionReferenceConfigInput = {}): SessionReferenceConfig {
  const parsed = sessionReferenceConfigSchema.safeParse(input);
  if (!parsed.success) {
    const issue = firstConfigIssue(parsed.error);
    throw referenceConfigError(issue.key, issue.reason);
  }
  return Object.freeze(parsed.data);
}
