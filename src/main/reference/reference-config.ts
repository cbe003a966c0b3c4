/**
 * Configuration of the session-reference service (SESSION-REFERENCE.md §3), resolved once at
 * construction: absent or `null` keys take their defaults, then each key is validated in order.
 */
import { configMaxReferencesTooLargeError, configNotPositiveSafeIntegerError } from '../../protocol/reference-errors.js';

/** The hard ceiling on references per message. */
export const MAX_REFERENCES = 3;
/** Default number of candidates discovery returns. */
export const DEFAULT_CANDIDATE_LIMIT = 50;
/** Default byte budget of one source's tag-safe JSON. */
export const DEFAULT_MAX_REFERENCE_BYTES = 65536;

/** What a host may pass; values are validated, not trusted. */
export interface SessionReferenceConfigInput {
  readonly maxReferences?: unknown;
  readonly candidateLimit?: unknown;
  readonly maxReferenceBytes?: unknown;
}

/** The resolved configuration, keys in dsh's order. */
export interface SessionReferenceConfig {
  readonly maxReferences: number;
  readonly candidateLimit: number;
  readonly maxReferenceBytes: number;
}

function isPositiveSafeInteger(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) > 0;
}

/**
 * Builds `{maxReferences, candidateLimit, maxReferenceBytes}` and validates each key in that order
 * (`SESSION_REFERENCE_INVALID_CONFIG`).
 */
export function resolveReferenceConfig(input: SessionReferenceConfigInput = {}): SessionReferenceConfig {
  const config = {
    maxReferences: input.maxReferences ?? MAX_REFERENCES,
    candidateLimit: input.candidateLimit ?? DEFAULT_CANDIDATE_LIMIT,
    maxReferenceBytes: input.maxReferenceBytes ?? DEFAULT_MAX_REFERENCE_BYTES,
  };
  for (const key of ['maxReferences', 'candidateLimit', 'maxReferenceBytes'] as const) {
    if (!isPositiveSafeInteger(config[key])) throw configNotPositiveSafeIntegerError(key);
  }
  if ((config.maxReferences as number) > MAX_REFERENCES) throw configMaxReferencesTooLargeError();
  return Object.freeze(config as SessionReferenceConfig);
}
