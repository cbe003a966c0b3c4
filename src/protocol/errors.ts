/**
 * Typed errors with stable codes. Message texts are dsh's exact texts (SESSION-LOG.md,
 * SESSION-REFERENCE.md); codes are this project's stable machine-readable classification.
 */

/** Stable codes of log-format errors: validation, storage decoding and layout. */
export type SessionLogErrorCode =
  /** Envelope rules of SESSION-LOG.md §2.3 / §2.4. */
  | 'SESSION_LOG_INVALID_ENVELOPE'
  /** Message-shape rules of §4.4 and request-header rules of §3.6. */
  | 'SESSION_LOG_INVALID_MESSAGE'
  /** Surface fold rules of §5.2 (including provenance and tool-result rewrite). */
  | 'SESSION_LOG_INVALID_SURFACE'
  /** Header rules of §7.2, §9.6. */
  | 'SESSION_LOG_INVALID_HEADER'
  /** Legacy vocabulary and malformed pre-react-loop events (§8.1, §8.2). */
  | 'SESSION_LOG_LEGACY_FORMAT'
  /** Non-JSON data or metadata on append, or a re-entrant append (§2.4). */
  | 'SESSION_LOG_INVALID_APPEND'
  /** Byte-level corruption: scanner issues, zstd frames, storage rows, identity (§9.5–§9.11). */
  | 'SESSION_LOG_CORRUPT'
  /** A record or event nests arrays and objects deeper than the limit of §9.15a (`MAX_EVENT_DEPTH`, 512 levels). */
  | 'SESSION_LOG_TOO_DEEP'
  /** Store layout problems: flat files, mixed encodings, duplicate ids, existing artifacts (§9.13–§9.16). */
  | 'SESSION_STORE_LAYOUT'
  /**
   * A lookup by id found no artifact (§9.15 R1). The query layer's code, so that a missing session carries
   * one code whichever layer reports it.
   */
  | 'SESSION_QUERY_SESSION_NOT_FOUND'
  /**
   * An id or cwd cannot name a storage path (§9.3, §9.4): empty, an encoded component longer than the file
   * system's 255-byte limit, or a write path through a symbolic link under the root (§9.16).
   */
  | 'SESSION_STORE_INVALID_PATH'
  /** `create` of an id that already has a log somewhere under the root (§9.16 rule 1). */
  | 'SESSION_STORE_EXISTS'
  /** Another live writer holds the session's lock (§9.16 rule 4); the message names its pid, host and since when. */
  | 'SESSION_STORE_LOCKED'
  /**
   * An append's optimistic check failed (§9.16 rule 5): the log's size or identity is not what this writer last
   * committed or verified, or the batch's first seq is not the log's next seq. Nothing was written.
   */
  | 'SESSION_STORE_CONFLICT'
  /** An append found a torn tail (§9.12); nothing was written: `repair` the session first (§9.16 rule 6). */
  | 'SESSION_STORE_TORN_TAIL'
  /** A file kept changing while it was read (§9.10); the read gave up instead of returning a torn view. */
  | 'SESSION_STORE_UNSTABLE_READ'
  /** The configured root is not a readable directory, or the store configuration is invalid (§9.1). */
  | 'SESSION_STORE_INVALID_CONFIG'
  /** An artifact path names a FIFO, socket, device or directory; it was refused without being read. */
  | 'SESSION_STORE_NOT_A_FILE'
  /** The file system refused an operation on a path (EACCES, EPERM, EROFS); the system error is the `cause`. */
  | 'SESSION_STORE_ACCESS_DENIED'
  /** Any other file-system failure (a vanished file, EMFILE, ENOSPC, EIO, …); the system error is the `cause`. */
  | 'SESSION_STORE_IO_FAILED';

/**
 * A log-format error. dsh throws plain `Error`s here and embeds `String(error)` in later messages
 * (`stored session "<id>" failed validation: Error: …`), so `name` stays `'Error'` for byte
 * compatibility; the class and `code` give callers a typed classification.
 */
export class SessionLogError extends Error {
  /** The stable classification of this error. */
  readonly code: SessionLogErrorCode;

  constructor(code: SessionLogErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    // Kept as 'Error' on purpose: dsh renders these as "Error: <message>" inside wrapping messages.
    Object.defineProperty(this, 'name', { value: 'Error', enumerable: false, configurable: true, writable: true });
  }
}

/**
 * Raised when a stored log needs a format this build does not read (SESSION-LOG.md §7.4, §8.3).
 * Name exactly `SessionFormatUnsupportedError`.
 */
export class SessionFormatUnsupportedError extends Error {
  /** Always `SESSION_FORMAT_UNSUPPORTED`. */
  readonly code = 'SESSION_FORMAT_UNSUPPORTED' as const;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    Object.defineProperty(this, 'name', { value: 'SessionFormatUnsupportedError', enumerable: false, configurable: true, writable: true });
  }
}

/**
 * Wraps a validation failure of an inspected log (SESSION-LOG.md §9.15 stages S1–S6). Message:
 * `stored session "<id>" failed validation: <String(error)>`, the original kept as `cause`.
 */
export class SessionPersistenceCorruptionError extends Error {
  /** Always `SESSION_PERSISTENCE_CORRUPT`. */
  readonly code = 'SESSION_PERSISTENCE_CORRUPT' as const;

  constructor(sessionId: string, cause: unknown) {
    super(`stored session "${sessionId}" failed validation: ${String(cause)}`, { cause });
    Object.defineProperty(this, 'name', {
      value: 'SessionPersistenceCorruptionError',
      enumerable: false,
      configurable: true,
      writable: true,
    });
  }
}

/** Codes of the query layer (SESSION-LOG.md §10.2), all prefixed `SESSION_QUERY_`. */
export type SessionQueryErrorCode =
  | 'SESSION_QUERY_ABORTED'
  | 'SESSION_QUERY_CORRUPT_SESSION'
  | 'SESSION_QUERY_EVENT_NOT_FOUND'
  | 'SESSION_QUERY_INDEX_FAILED'
  | 'SESSION_QUERY_INVALID_CONFIG'
  | 'SESSION_QUERY_INVALID_CURSOR'
  | 'SESSION_QUERY_INVALID_FILTER'
  | 'SESSION_QUERY_INVALID_LIMIT'
  | 'SESSION_QUERY_INVALID_QUERY'
  | 'SESSION_QUERY_INVALID_LINEAGE'
  | 'SESSION_QUERY_INVALID_SURFACE'
  | 'SESSION_QUERY_INVALID_WINDOW'
  | 'SESSION_QUERY_PERSISTENCE_FAILED'
  | 'SESSION_QUERY_SEARCH_DISABLED'
  | 'SESSION_QUERY_SESSION_NOT_FOUND'
  | 'SESSION_QUERY_STALE_CURSOR'
  | 'SESSION_QUERY_SOURCE_CONFLICT';

/** An error of the session query layer (SESSION-LOG.md §10.2). Name exactly `SessionQueryError`. */
export class SessionQueryError extends Error {
  /** The stable `SESSION_QUERY_*` code. */
  readonly code: SessionQueryErrorCode;

  constructor(code: SessionQueryErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    Object.defineProperty(this, 'name', { value: 'SessionQueryError', enumerable: false, configurable: true, writable: true });
  }
}

/** `e.message` for an `Error`, else `unknown error` (SESSION-LOG.md §10.1 `errorMessage`). */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : 'unknown error';
}

/** True when `error` carries a string `code` property (any of this project's typed errors). */
export function hasErrorCode(error: unknown): error is { code: string; message: string } {
  return typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'string';
}
