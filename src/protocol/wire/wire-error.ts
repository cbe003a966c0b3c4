/**
 * The one error codec: errors across a thread boundary (SESSION-LOG.md §10.6 rule 4), and (through
 * `workers/titles/serialized-error.ts`, which only changes the form) in persisted title checkpoints. Structured clone keeps only the
 * message and stack of an `Error` and drops `code` and custom names, which would change the §10.1
 * classification (corruption is recognised by `name`, codes by `code`). A failure is therefore sent as
 * plain data and rebuilt on the other side with the same `name`, `message` and `code`, its cause chain
 * likewise, and the prototype of the matching project error class so `instanceof` keeps working.
 */
import {
  SessionFormatUnsupportedError,
  SessionLogError,
  SessionPersistenceCorruptionError,
  SessionQueryError,
  type SessionLogErrorCode,
} from '../errors.js';
import { SessionReferenceError } from '../reference-errors.js';
import { SessionPoolError } from './pool-errors.js';
import { safeString } from '../safe-string.js';
import { assertNever } from '../assert-never.js';

/** An `Error` as plain data. */
export interface WireErrorObject {
  readonly kind: 'error';
  readonly name: string;
  readonly message: string;
  /** The `code` property when it is a string or a number (Node's system errors use strings). */
  readonly code?: string | number;
  readonly stack?: string;
  /** The cause, when the error has an own `cause` property. */
  readonly cause?: WireError;
}

/** A thrown primitive (`throw 'text'`), kept as is so `errorMessage` still says `unknown error`. */
export interface WireThrownPrimitive {
  readonly kind: 'primitive';
  readonly value: string | number | boolean | null | undefined;
}

/** A thrown non-`Error` object, reduced to its `String()` rendering. */
export interface WireThrownObject {
  readonly kind: 'object';
  readonly text: string;
}

/** Any thrown value as plain data. */
export type WireError = WireErrorObject | WireThrownPrimitive | WireThrownObject;

/** Causes deeper than this are cut off (a cycle or a pathological chain must not hang serialisation). */
const MAX_CAUSE_DEPTH = 8;

/** Reads a property without letting a throwing getter escape. */
function safeGet(value: object, key: string): unknown {
  try {
    return (value as Record<string, unknown>)[key];
  } catch {
    // A throwing getter on a foreign error object: treat the property as absent.
    return undefined;
  }
}

/** Serialises a thrown value for `postMessage`. */
export function serializeError(thrown: unknown, depth = 0): WireError {
  if (thrown === null || (typeof thrown !== 'object' && typeof thrown !== 'function')) {
    if (
      typeof thrown === 'string' ||
      typeof thrown === 'number' ||
      typeof thrown === 'boolean' ||
      thrown === null ||
      thrown === undefined
    ) {
      return { kind: 'primitive', value: thrown };
    }
    return { kind: 'object', text: safeString(thrown) };
  }
  if (!(thrown instanceof Error)) return { kind: 'object', text: safeString(thrown) };
  const name = safeGet(thrown, 'name');
  const message = safeGet(thrown, 'message');
  const code = safeGet(thrown, 'code');
  const stack = safeGet(thrown, 'stack');
  const hasCause = Object.hasOwn(thrown, 'cause') && depth < MAX_CAUSE_DEPTH;
  return {
    kind: 'error',
    name: typeof name === 'string' ? name : 'Error',
    message: typeof message === 'string' ? message : '',
    ...(typeof code === 'string' || typeof code === 'number' ? { code } : {}),
    ...(typeof stack === 'string' ? { stack } : {}),
    ...(hasCause ? { cause: serializeError(safeGet(thrown, 'cause'), depth + 1) } : {}),
  };
}

/** Every {@link SessionLogErrorCode}: the codes that identify a `SessionLogError` (name `Error`) when it is rebuilt. */
const SESSION_LOG_CODES: Readonly<Record<SessionLogErrorCode, true>> = {
  SESSION_LOG_INVALID_ENVELOPE: true,
  SESSION_LOG_INVALID_MESSAGE: true,
  SESSION_LOG_INVALID_SURFACE: true,
  SESSION_LOG_INVALID_HEADER: true,
  SESSION_LOG_LEGACY_FORMAT: true,
  SESSION_LOG_INVALID_APPEND: true,
  SESSION_LOG_CORRUPT: true,
  SESSION_LOG_TOO_DEEP: true,
  SESSION_STORE_LAYOUT: true,
  SESSION_QUERY_SESSION_NOT_FOUND: true,
  SESSION_STORE_INVALID_PATH: true,
  SESSION_STORE_EXISTS: true,
  SESSION_STORE_LOCKED: true,
  SESSION_STORE_CONFLICT: true,
  SESSION_STORE_TORN_TAIL: true,
  SESSION_STORE_UNSTABLE_READ: true,
  SESSION_STORE_INVALID_CONFIG: true,
  SESSION_STORE_NOT_A_FILE: true,
  SESSION_STORE_ACCESS_DENIED: true,
  SESSION_STORE_IO_FAILED: true,
};

/** The prototype a rebuilt error gets, so `instanceof` matches the class that was thrown. */
function prototypeFor(name: string, code: string | number | undefined): object {
  switch (name) {
    case 'SessionQueryError':
      return SessionQueryError.prototype;
    case 'SessionFormatUnsupportedError':
      return SessionFormatUnsupportedError.prototype;
    case 'SessionPersistenceCorruptionError':
      return SessionPersistenceCorruptionError.prototype;
    case 'SessionReferenceError':
      return SessionReferenceError.prototype;
    case 'SessionPoolError':
      return SessionPoolError.prototype;
    case 'TypeError':
      return TypeError.prototype;
    case 'RangeError':
      return RangeError.prototype;
    case 'SyntaxError':
      return SyntaxError.prototype;
    case 'ReferenceError':
      return ReferenceError.prototype;
    case 'Error':
      // SessionLogError keeps the name 'Error' for dsh compatibility; its codes identify it (the store's
      // not-found error shares the query layer's code, but only a SessionQueryError is named SessionQueryError).
      return typeof code === 'string' && Object.hasOwn(SESSION_LOG_CODES, code) ? SessionLogError.prototype : Error.prototype;
    default:
      return Error.prototype;
  }
}

/**
 * Rebuilds a thrown value from {@link serializeError}'s data: primitives as themselves, objects as an
 * `Error` with their text, errors with the same name, message, code and (recursively) cause.
 */
export function rebuildError(wire: WireError): unknown {
  switch (wire.kind) {
    case 'primitive':
      return wire.value;
    case 'object':
      return new Error(wire.text);
    case 'error': {
      const error = wire.cause === undefined ? new Error(wire.message) : new Error(wire.message, { cause: rebuildError(wire.cause) });
      Object.setPrototypeOf(error, prototypeFor(wire.name, wire.code));
      Object.defineProperty(error, 'name', { value: wire.name, enumerable: false, configurable: true, writable: true });
      if (wire.code !== undefined) (error as { code?: string | number }).code = wire.code;
      if (wire.stack !== undefined)
        Object.defineProperty(error, 'stack', { value: wire.stack, enumerable: false, configurable: true, writable: true });
      return error;
    }
    default:
      assertNever(wire, 'unknown wire error');
  }
}

/** True when `value` has the shape of a {@link WireError} (used to validate worker messages). */
export function isWireError(value: unknown, depth = 0): value is WireError {
  if (typeof value !== 'object' || value === null || depth > MAX_CAUSE_DEPTH + 1) return false;
  const record = value as Record<string, unknown>;
  switch (record['kind']) {
    case 'primitive': {
      const inner = record['value'];
      return inner === null || inner === undefined || typeof inner === 'string' || typeof inner === 'number' || typeof inner === 'boolean';
    }
    case 'object':
      return typeof record['text'] === 'string';
    case 'error': {
      const code = record['code'];
      const cause = record['cause'];
      return (
        typeof record['name'] === 'string' &&
        typeof record['message'] === 'string' &&
        (code === undefined || typeof code === 'string' || typeof code === 'number') &&
        (record['stack'] === undefined || typeof record['stack'] === 'string') &&
        (cause === undefined || isWireError(cause, depth + 1))
      );
    }
    default:
      return false;
  }
}
