/**
 * The storage error mapping of the query layer (SESSION-LOG.md §10.1), shared by `SessionQuery` and the
 * pool-backed reference renderer so both classify a failed listing or inspection identically.
 */
import { SessionQueryError, errorMessage } from '../../../protocol/errors.js';
import type { DamagedLogErrors } from './query-config.js';

/** A failed listing: `session persistence listing failed: <msg>`, `SESSION_QUERY_PERSISTENCE_FAILED`, cause kept. */
export function listingFailure(error: unknown): SessionQueryError {
  return new SessionQueryError('SESSION_QUERY_PERSISTENCE_FAILED', `session persistence listing failed: ${errorMessage(error)}`, {
    cause: error,
  });
}

/**
 * The codes of a log whose bytes are damaged: its framing (raw lines, zstd frames, checksums, the scanner's
 * committed-line rules), its header record (not JSON, not a header, retired fields), its identity, or a record
 * nesting beyond the limit of SESSION-LOG.md §9.15a. dsh reports
 * these as plain read failures (SESSION-LOG.md §9.15a); here they are corruption, like validation failures.
 */
const CORRUPTION_CODES: ReadonlySet<string> = new Set(['SESSION_LOG_CORRUPT', 'SESSION_LOG_INVALID_HEADER', 'SESSION_LOG_TOO_DEEP']);

/**
 * True when `error` says the stored log itself is damaged (by name or code, so rebuilt errors classify alike). With
 * `damaged: 'dsh'` only a validation failure counts, as in dsh, whose backends report damaged bytes as read failures.
 */
function isCorruption(error: unknown, damaged: DamagedLogErrors): boolean {
  if (!(error instanceof Error)) return false;
  if (error.name === 'SessionPersistenceCorruptionError') return true;
  if (damaged === 'dsh') return false;
  const code = (error as { code?: unknown }).code;
  return error.name === 'Error' && typeof code === 'string' && CORRUPTION_CODES.has(code);
}

/**
 * A failed inspection:
 * - the session does not exist (the store's not-found error, code `SESSION_QUERY_SESSION_NOT_FOUND`) →
 *   `session "<id>" not found`, `SESSION_QUERY_SESSION_NOT_FOUND`, so a missing session has one code and text
 *   whether the listing or the lookup noticed;
 * - corruption: a validation failure (recognised by the error's name) or damaged bytes (framing, header,
 *   identity; recognised by code), so errors rebuilt across a thread boundary classify alike →
 *   `stored session "<id>" is corrupt: <msg>`, `SESSION_QUERY_CORRUPT_SESSION`;
 * - anything else (I/O, layout, a format this build cannot read) → `failed to inspect session "<id>": <msg>`,
 *   `SESSION_QUERY_PERSISTENCE_FAILED`.
 * Cause kept. `damaged` is the query config's `damagedLogErrors` (default `corruption`).
 */
export function inspectionFailure(sessionId: string, error: unknown, damaged: DamagedLogErrors = 'corruption'): SessionQueryError {
  if (error instanceof Error && error.name === 'Error' && (error as { code?: unknown }).code === 'SESSION_QUERY_SESSION_NOT_FOUND') {
    return new SessionQueryError('SESSION_QUERY_SESSION_NOT_FOUND', `session "${sessionId}" not found`, { cause: error });
  }
  if (isCorruption(error, damaged)) {
    return new SessionQueryError('SESSION_QUERY_CORRUPT_SESSION', `stored session "${sessionId}" is corrupt: ${errorMessage(error)}`, {
      cause: error,
    });
  }
  return new SessionQueryError('SESSION_QUERY_PERSISTENCE_FAILED', `failed to inspect session "${sessionId}": ${errorMessage(error)}`, {
    cause: error,
  });
}

/** `session "<id>" not found`, `SESSION_QUERY_SESSION_NOT_FOUND` (§10.2). */
export function sessionNotFound(sessionId: string): SessionQueryError {
  return new SessionQueryError('SESSION_QUERY_SESSION_NOT_FOUND', `session "${sessionId}" not found`);
}
