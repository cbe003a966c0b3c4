/**
 * The typed refusal of the working-directory file index (issue 28, docs/WEB.md "The @ source"): a cwd the index
 * cannot list. The Web page shows it as the file domain's failure and keeps the session domain.
 */

/** Why a file listing was refused. */
export type FileIndexErrorCode =
  /** The cwd is not an absolute path (a log's cwd as written, never resolved against the server's own). */
  | 'FILE_INDEX_CWD_INVALID'
  /** The cwd does not exist (here) or is not a directory: a session written on another machine, a deleted project. */
  | 'FILE_INDEX_CWD_MISSING'
  /** The cwd exists but cannot be listed (permissions, I/O). */
  | 'FILE_INDEX_CWD_UNREADABLE';

/** A cwd the file index refuses. */
export class FileIndexError extends Error {
  /** The stable code. */
  readonly code: FileIndexErrorCode;

  /**
   * @param code - the stable code
   * @param message - what went wrong, in words
   * @param options - the system error behind it
   */
  constructor(code: FileIndexErrorCode, message: string, options?: { readonly cause?: unknown }) {
    super(message, options);
    this.name = 'FileIndexError';
    this.code = code;
  }
}
