/**
 * The typed failures of full-text search (issue 17), the same on the worker and the caller's side (they cross as
 * wire errors, keeping name, message and code). An abandoned query is not one of them: it rejects with the
 * caller's `signal.reason`, as every read of the engine does.
 */

/** Stable codes of search failures. */
export type SearchErrorCode =
  /** The native SQLite module could not be loaded (or lacks FTS5): the message says why. Nothing else is affected. */
  | 'SEARCH_UNAVAILABLE'
  /** `search.enabled` is false. */
  | 'SEARCH_DISABLED'
  /** The index path holds a file that is not sessionctx's index (another database, not SQLite): refused, never modified. */
  | 'SEARCH_FOREIGN_DATABASE'
  /** Another connection held the index's lock longer than `search.busyTimeoutMs`. */
  | 'SEARCH_INDEX_BUSY'
  /** The index could not be opened, written or read (a file-system or SQLite failure); the cause says which. */
  | 'SEARCH_INDEX_FAILED'
  /** The request is malformed: an empty phrase, a bad filter, a limit out of bounds, a CJK phrase under 3 characters. */
  | 'SEARCH_INVALID_QUERY'
  /** The cursor is not one this search issued for this query. */
  | 'SEARCH_INVALID_CURSOR'
  /** The `search` configuration is invalid (names the key). */
  | 'SEARCH_INVALID_CONFIG'
  /** The search worker failed or answered something malformed; the next request starts a new worker. */
  | 'SEARCH_WORKER_FAILED';

/** A search failure with a stable code. */
export class SearchError extends Error {
  /** The stable classification. */
  readonly code: SearchErrorCode;

  /**
   * @param code - the classification.
   * @param message - what happened, for a person.
   * @param options - the underlying failure, if any.
   */
  constructor(code: SearchErrorCode, message: string, options?: { readonly cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'SearchError';
    this.code = code;
  }
}
