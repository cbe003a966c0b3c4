/**
 * Configuration of the session query layer (SESSION-LOG.md §10.2) as one schema: its type, defaults and rules with
 * the exact texts, code `SESSION_QUERY_INVALID_CONFIG`.
 */
import { z } from 'zod';
import { firstConfigIssue, nullAsAbsent, positiveSafeInteger } from '../../../protocol/config-schema.js';
import { SessionQueryError } from '../../../protocol/errors.js';

/** Default maximum raw-event window of a windowed read. */
export const DEFAULT_READ_WINDOW_MAX = 50;

/** Default number of persisted inspections one title batch runs at the same time. */
export const DEFAULT_PERSISTED_INSPECT_CONCURRENCY = 4;

// "Integer", not "safe integer": the §10.2 table bounds only this key's sign.
const NON_NEGATIVE_INTEGER_REASON = 'must be a non-negative integer';

/** The schema, keys in table order (§10.2). */
const sessionQueryConfigSchema = z.object({
  /** Maximum before/after raw-event window (integer ≥ 0). */
  readWindowMax: nullAsAbsent(
    z
      .number({ error: NON_NEGATIVE_INTEGER_REASON })
      .refine((value) => Number.isInteger(value) && value >= 0, { error: NON_NEGATIVE_INTEGER_REASON })
      .default(DEFAULT_READ_WINDOW_MAX),
  ),
  /** Maximum simultaneous persisted inspections in one `readTitleSnapshots` batch (positive safe integer). */
  persistedInspectConcurrency: nullAsAbsent(positiveSafeInteger().default(DEFAULT_PERSISTED_INSPECT_CONCURRENCY)),
  /**
   * How a log whose bytes are damaged (framing, JSON, header) is reported (SESSION-LOG.md §9.15a): `corruption`, as
   * corruption (`SESSION_QUERY_CORRUPT_SESSION`); `dsh`, as dsh 0.1 does (a failed inspection,
   * `SESSION_QUERY_PERSISTENCE_FAILED`) — for a host whose errors must read as dsh's (`sessionctx/dsh`).
   */
  damagedLogErrors: nullAsAbsent(z.enum(['corruption', 'dsh'], { error: 'must be "corruption" or "dsh"' }).default('corruption')),
});

/**
 * Caller-supplied configuration. Values are typed loosely because they usually come from a config
 * file; an absent or `null` key takes its default.
 */
export interface SessionQueryConfigInput {
  readonly readWindowMax?: unknown;
  readonly persistedInspectConcurrency?: unknown;
  readonly damagedLogErrors?: unknown;
}

/** How damaged log bytes are reported: see the `damagedLogErrors` key. */
export type DamagedLogErrors = 'corruption' | 'dsh';

/** Validated configuration with every default applied. */
export type SessionQueryConfig = Readonly<z.output<typeof sessionQueryConfigSchema>>;

/**
 * Applies defaults, then validates each key in table order (§10.2).
 * @param input - the caller's values.
 * @returns the frozen configuration.
 * @throws SessionQueryError `SESSION_QUERY_INVALID_CONFIG`: `session-query: <key> <reason>` for the first bad key.
 */
export function resolveSessionQueryConfig(input: SessionQueryConfigInput = {}): SessionQueryConfig {
  const parsed = sessionQueryConfigSchema.safeParse(input);
  if (!parsed.success) {
    const issue = firstConfigIssue(parsed.error);
    throw new SessionQueryError('SESSION_QUERY_INVALID_CONFIG', `session-query: ${issue.key} ${issue.reason}`);
  }
  return Object.freeze(parsed.data);
}
