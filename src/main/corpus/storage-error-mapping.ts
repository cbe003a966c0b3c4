/**
 * The storage error mapping of the query layer (SESSION-LOG.md §10.1), shared by `SessionQuery` and the
 * pool-backed reference renderer so both classify a failed listing or inspection identically.
 */
import { SessionQueryError, errorMessage } from '../../protocol/errors.js';

/** A failed listing: `session persistence listing failed: <msg>`, `SESSION_QUERY_PERSISTENCE_FAILED`, cause kept. */
export function listingFailure(error: unknown): SessionQueryError {
  return new SessionQueryError('SESSION_QUERY_PERSISTENCE_FAILED', `session persistence listing failed: ${errorMessage(error)}`, { cause: error });
}

/**
 * A failed inspection: corruption (recognised by the error's name, so errors rebuilt across a thread
 * boundary classify alike) → `stored session "<id>" is corrupt: <msg>`, `SESSION_QUERY_CORRUPT_SESSION`;
 * anything else → `failed to inspect session "<id>": <msg>`, `SESSION_QUERY_PERSISTENCE_FAILED`. Cause kept.
 */
export function inspectionFailure(sessionId: string, error: unknown): SessionQueryError {
  if (error instanceof Error && error.name === 'SessionPersistenceCorruptionError') {
    return new SessionQueryError('SESSION_QUERY_CORRUPT_SESSION', `stored session "${sessionId}" is corrupt: ${errorMessage(error)}`, { cause: error });
  }
  return new SessionQueryError('SESSION_QUERY_PERSISTENCE_FAILED', `failed to inspect session "${sessionId}": ${errorMessage(error)}`, { cause: error });
}

/** `session "<id>" not found`, `SESSION_QUERY_SESSION_NOT_FOUND` (§10.2). */
export function sessionNotFound(sessionId: string): SessionQueryError {
  return new SessionQueryError('SESSION_QUERY_SESSION_NOT_FOUND', `session "${sessionId}" not found`);
}
