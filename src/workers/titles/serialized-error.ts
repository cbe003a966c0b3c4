/**
 * Errors as plain data, for title checkpoints and outcomes that are persisted or cross a thread boundary
 * (SESSION-LOG.md §10.6 rule 4, §10.7): an error is kept as its `name`, `message` and `code` (and its cause's,
 * recursively a few levels) and rebuilt with the same class where the class carries meaning, so the query
 * layer's classification by name (§10.1) and every text stay exactly as a full inspection produces them.
 */
import {
  SessionFormatUnsupportedError,
  SessionLogError,
  SessionPersistenceCorruptionError,
  type SessionLogErrorCode,
} from '../../protocol/errors.js';
import { quoteText, unquoteText, type QuotedText } from './json-text.js';

/** One error as plain data. Strings are {@link QuotedText} so that lone surrogates survive any transport. */
export interface SerializedError {
  readonly name: QuotedText;
  readonly message: QuotedText;
  /** The error's string `code`, when it has one. */
  readonly code: QuotedText | null;
  readonly cause: SerializedError | null;
}

/** How many levels of `cause` are kept; deeper causes are never part of an observable result. */
const MAX_CAUSE_DEPTH = 3;

/** The codes that identify a `SessionLogError` (name `Error`) when an error is rebuilt. */
const SESSION_LOG_CODES: ReadonlySet<string> = new Set<SessionLogErrorCode>([
  'SESSION_LOG_INVALID_ENVELOPE',
  'SESSION_LOG_INVALID_MESSAGE',
  'SESSION_LOG_INVALID_SURFACE',
  'SESSION_LOG_INVALID_HEADER',
  'SESSION_LOG_LEGACY_FORMAT',
  'SESSION_LOG_INVALID_APPEND',
  'SESSION_LOG_CORRUPT',
  'SESSION_LOG_TOO_DEEP',
  'SESSION_STORE_LAYOUT',
  'SESSION_QUERY_SESSION_NOT_FOUND',
  'SESSION_STORE_INVALID_PATH',
  'SESSION_STORE_UNSTABLE_READ',
  'SESSION_STORE_INVALID_CONFIG',
  'SESSION_STORE_NOT_A_FILE',
  'SESSION_STORE_ACCESS_DENIED',
  'SESSION_STORE_IO_FAILED',
  'SESSION_STORE_EXISTS',
  'SESSION_STORE_LOCKED',
  'SESSION_STORE_CONFLICT',
  'SESSION_STORE_TORN_TAIL',
]);

/**
 * The plain-data form of a thrown `Error`.
 *
 * @throws TypeError when `error` is not an `Error` (nothing in the inspection pipeline throws other values;
 *   callers treat this as "cannot index" and fall back to a full inspection).
 */
export function serializeError(error: unknown, depth = 0): SerializedError {
  if (!(error instanceof Error)) throw new TypeError('only Error instances can be serialized');
  const code: unknown = (error as { code?: unknown }).code;
  const cause: unknown = error.cause;
  return {
    name: quoteText(error.name),
    message: quoteText(error.message),
    code: typeof code === 'string' ? quoteText(code) : null,
    cause: cause instanceof Error && depth < MAX_CAUSE_DEPTH ? serializeError(cause, depth + 1) : null,
  };
}

/** Gives `error` an own `name` and (when present) `code` without changing its class. */
function brand(error: Error, name: string, code: string | null): Error {
  if (error.name !== name) Object.defineProperty(error, 'name', { value: name, enumerable: false, configurable: true, writable: true });
  if (code !== null && (error as { code?: unknown }).code !== code) {
    Object.defineProperty(error, 'code', { value: code, enumerable: true, configurable: true, writable: true });
  }
  return error;
}

/**
 * Rebuilds a serialized error: `SessionPersistenceCorruptionError`, `SessionFormatUnsupportedError`, a
 * `SessionLogError` (name `Error` with one of its codes) and the native `TypeError`/`RangeError`/`SyntaxError`
 * get their own classes; anything else becomes an `Error` carrying the same name and code. Message, name and
 * code are always exactly the serialized ones.
 */
export function rebuildError(serialized: SerializedError): Error {
  const name = unquoteText(serialized.name);
  const message = unquoteText(serialized.message);
  const code = serialized.code === null ? null : unquoteText(serialized.code);
  const options = serialized.cause === null ? undefined : { cause: rebuildError(serialized.cause) };
  let error: Error;
  switch (name) {
    case 'SessionPersistenceCorruptionError': {
      error = new SessionPersistenceCorruptionError('', options?.cause);
      // The constructor renders its message from the id; the serialized message is the one to keep.
      error.message = message;
      break;
    }
    case 'SessionFormatUnsupportedError':
      error = new SessionFormatUnsupportedError(message, options);
      break;
    case 'TypeError':
      error = new TypeError(message, options);
      break;
    case 'RangeError':
      error = new RangeError(message, options);
      break;
    case 'SyntaxError':
      error = new SyntaxError(message, options);
      break;
    default:
      error = name === 'Error' && code !== null && SESSION_LOG_CODES.has(code)
        ? new SessionLogError(code as SessionLogErrorCode, message, options)
        : new Error(message, options);
      break;
  }
  return brand(error, name, code);
}
