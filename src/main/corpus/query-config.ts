/**
 * Configuration of the session query layer (SESSION-LOG.md §10.2): defaults and validation with
 * the exact texts, code `SESSION_QUERY_INVALID_CONFIG`.
 */
import { SessionQueryError } from '../../protocol/errors.js';

/** Default maximum raw-event window of a windowed read. */
export const DEFAULT_READ_WINDOW_MAX = 50;

/** Default number of persisted inspections one title batch runs at the same time. */
export const DEFAULT_PERSISTED_INSPECT_CONCURRENCY = 4;

/**
 * Caller-supplied configuration. Values are typed loosely because they usually come from a config
 * file; an absent or `null` key takes its default.
 */
export interface SessionQueryConfigInput {
  readonly readWindowMax?: unknown;
  readonly persistedInspectConcurrency?: unknown;
}

/** Validated configuration with every default applied. */
export interface SessionQueryConfig {
  /** Maximum before/after raw-event window (integer ≥ 0). */
  readonly readWindowMax: number;
  /** Maximum simultaneous persisted inspections in one `readTitleSnapshots` batch (positive safe integer). */
  readonly persistedInspectConcurrency: number;
}

/**
 * Applies defaults, then validates each key in table order (§10.2); throws `SessionQueryError`
 * `SESSION_QUERY_INVALID_CONFIG` with the key's exact text. The result is frozen.
 */
export function resolveSessionQueryConfig(input: SessionQueryConfigInput = {}): SessionQueryConfig {
  const readWindowMax = input.readWindowMax ?? DEFAULT_READ_WINDOW_MAX;
  const persistedInspectConcurrency = input.persistedInspectConcurrency ?? DEFAULT_PERSISTED_INSPECT_CONCURRENCY;
  if (!isNonNegativeInteger(readWindowMax)) {
    throw invalidConfig('session-query: readWindowMax must be a non-negative integer');
  }
  if (!isPositiveSafeInteger(persistedInspectConcurrency)) {
    throw invalidConfig('session-query: persistedInspectConcurrency must be a positive safe integer');
  }
  return Object.freeze({ readWindowMax, persistedInspectConcurrency });
}

// "Integer", not "safe integer": the §10.2 table bounds only this key's sign.
function isNonNegativeInteger(value: unknown): value is number {
  return Number.isInteger(value) && (value as number) >= 0;
}

function isPositiveSafeInteger(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 1;
}

function invalidConfig(message: string): SessionQueryError {
  return new SessionQueryError('SESSION_QUERY_INVALID_CONFIG', message);
}
