/**
 * The exact layout and identity error texts of SESSION-LOG.md §9.5, §9.13, §9.14 and §9.16.
 */
import { SessionLogError } from './errors.js';
import type { Compression } from './storage-paths.js';

/** The artifact suffix of the other encoding, which must not appear under this root. */
export function oppositeSuffix(compression: Compression): string {
  return compression === 'zstd' ? '.jsonl' : '.jsonl.zstd';
}

/** An artifact of the other encoding was found under this root (§9.13 step 1). */
export function encodingMismatchError(path: string, compression: Compression): SessionLogError {
  return new SessionLogError(
    'SESSION_STORE_LAYOUT',
    `session artifact ${JSON.stringify(path)} uses ${oppositeSuffix(compression)}, but this backend is configured for compression ${JSON.stringify(compression)}; use a separate root or select the matching compression mode`,
  );
}

/** A transcript file sits directly in a project directory (§9.13 step 3). */
export function flatLayoutError(path: string): SessionLogError {
  return new SessionLogError(
    'SESSION_STORE_LAYOUT',
    `session artifact ${JSON.stringify(path)} uses the unsupported flat-file layout; use a separate root or move it into a project/session directory before loading`,
  );
}

/** The same id appears under two project directories (§9.13 step 7, §9.14). */
export function duplicateIdError(id: string): SessionLogError {
  return new SessionLogError('SESSION_STORE_LAYOUT', `duplicate JSONL session id "${id}" appears in multiple project directories`);
}

/**
 * No artifact exists for an id (§9.15 R1): dsh's plain `Error` (name `Error`), with the query layer's code
 * `SESSION_QUERY_SESSION_NOT_FOUND` so a missing session has one code in every layer.
 */
export function sessionNotFoundError(id: string): SessionLogError {
  return new SessionLogError('SESSION_QUERY_SESSION_NOT_FOUND', `session "${id}" not found`);
}

/** The header's id or cwd cannot be turned into a path (§9.5). */
export function unnameableHeaderError(path: string): SessionLogError {
  return new SessionLogError('SESSION_LOG_CORRUPT', `corrupt session log "${path}": header id cannot name a storage path`);
}

/** The artifact is not where its header says it belongs (§9.5). */
export function misplacedArtifactError(path: string, id: string, expected: string): SessionLogError {
  return new SessionLogError('SESSION_LOG_CORRUPT', `corrupt session log "${path}": header id "${id}" and cwd identify "${expected}"`);
}

/** A read by id found a header naming another session (§9.5). */
export function requestedIdMismatchError(path: string, requested: string, headerId: string): SessionLogError {
  return new SessionLogError(
    'SESSION_LOG_CORRUPT',
    `corrupt session log "${path}": requested id "${requested}" does not match header id "${headerId}"`,
  );
}

/** The writer refuses to overwrite an existing log (§9.16 rule 1): dsh's text, code `SESSION_STORE_EXISTS`. */
export function alreadyMaterializedError(id: string): SessionLogError {
  return new SessionLogError(
    'SESSION_STORE_EXISTS',
    `refusing to materialize "${id}": a log already exists on disk (load/resume it instead)`,
  );
}

/** `create` of an id whose log exists under another project directory (§9.16 rule 1). */
export function existsElsewhereError(id: string, path: string): SessionLogError {
  return new SessionLogError(
    'SESSION_STORE_EXISTS',
    `refusing to materialize "${id}": a log of this id already exists at ${JSON.stringify(path)} (ids are unique in a root; load/resume it instead)`,
  );
}
