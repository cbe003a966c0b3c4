/**
 * The building blocks of every configuration schema (composition, reference, query, store, DCP): zod rules whose
 * every failure reads one reason text of ours (zod's own texts never reach a user), and the first issue of a
 * failed parse. Each namespace composes its schema from these and maps an issue to its own typed error, so a rule
 * such as "a positive safe integer" is written once and reads the same wherever it applies.
 */
import { z } from 'zod';

// Validation here runs a few times per process (at start-up, per request); zod's default compiles each object schema
// into a specialised function on its first parse, which costs more than it saves at that count (it was a tenth of a
// `sessions` command's start-up). Set before any schema parses: every configuration schema imports this module.
z.config({ jitless: true });

/** The reason of the positive-safe-integer rule (SESSION-REFERENCE.md §3, SESSION-LOG.md §10.2). */
export const POSITIVE_SAFE_INTEGER_REASON = 'must be a positive safe integer';

/**
 * A safe integer ≥ `min`; every failure (not a number, NaN, a fraction, too small, beyond 2^53 − 1) reads `reason`.
 * @param min - the smallest accepted value.
 * @param reason - the text of every failure.
 */
export function safeIntegerAtLeast(min: number, reason: string): z.ZodNumber {
  // A refinement, not `z.int()`: zod aborts the enclosing object on a failed `z.int()`, which would keep an object's
  // own refinements (DCP's `nudge.minRatio`, the reference ceiling) from running and reporting in table order.
  return z.number({ error: reason }).refine(Number.isSafeInteger, { error: reason }).min(min, { error: reason });
}

/**
 * A safe integer in `[min, max]`; every failure reads `reason`.
 * @param min - the smallest accepted value.
 * @param max - the largest accepted value.
 * @param reason - the text of every failure.
 */
export function safeIntegerBetween(min: number, max: number, reason: string): z.ZodNumber {
  return safeIntegerAtLeast(min, reason).max(max, { error: reason });
}

/**
 * A positive safe integer; every failure reads `reason` (default {@link POSITIVE_SAFE_INTEGER_REASON}).
 * @param reason - the text of every failure.
 */
export function positiveSafeInteger(reason: string = POSITIVE_SAFE_INTEGER_REASON): z.ZodNumber {
  return safeIntegerAtLeast(1, reason);
}

/**
 * A boolean; any other value reads `reason`.
 * @param reason - the text of a failure.
 */
export function booleanRule(reason: string): z.ZodBoolean {
  return z.boolean({ error: reason });
}

/**
 * `schema` with `null` taken as absent, so that its default applies: the reference and query namespaces treat an
 * absent and a `null` key alike (their values usually come from a JSON file).
 * @param schema - the key's schema, normally with a default.
 */
export function nullAsAbsent<T extends z.ZodType>(schema: T): z.ZodPreprocess<T> {
  return z.preprocess((value: unknown) => (value === null ? undefined : value), schema);
}

/** The first failure of a parse: the dotted key and the reason. */
export interface ConfigIssue {
  /** The dotted key (`compress.maxRangesPerCall`); empty for the namespace itself. */
  readonly key: string;
  readonly reason: string;
}

/**
 * The issue a namespace reports. zod reports the keys of an object in the schema's key order and a refinement of
 * the object after them, so the first issue is the first key that failed, in the order the schema declares.
 * @param error - a failed parse's error.
 */
export function firstConfigIssue(error: z.ZodError): ConfigIssue {
  const issue = error.issues[0];
  // A failed parse always carries at least one issue.
  if (issue === undefined) throw new TypeError('a failed configuration parse reported no issue');
  return { key: issue.path.map(String).join('.'), reason: issue.message };
}
