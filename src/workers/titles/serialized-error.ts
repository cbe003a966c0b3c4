/**
 * Errors as plain data in title checkpoints and outcomes, which are persisted or cross a thread boundary
 * (SESSION-LOG.md §10.6 rule 4, §10.7). This is only the checkpoint's *form* of the one error codec
 * (`protocol/wire/wire-error.ts`, which reads an error and rebuilds it with its class): the `name`, `message`
 * and string `code` of an error and of its causes (a few levels), strings as {@link QuotedText} so that lone
 * surrogates survive msgpack and UTF-8, and no stack.
 */
import {
  rebuildError as rebuildWireError,
  serializeError as serializeWireError,
  type WireError,
  type WireErrorObject,
} from '../../protocol/wire/wire-error.js';
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

/** The checkpoint form of an error the wire codec read; only causes that are errors are kept. */
function fromWire(wire: WireErrorObject, depth: number): SerializedError {
  const cause: WireError | undefined = wire.cause;
  return {
    name: quoteText(wire.name),
    message: quoteText(wire.message),
    code: typeof wire.code === 'string' ? quoteText(wire.code) : null,
    cause: cause?.kind === 'error' && depth < MAX_CAUSE_DEPTH ? fromWire(cause, depth + 1) : null,
  };
}

/** The wire codec's form of a checkpoint error. @throws TypeError for a damaged quoted text. */
function toWire(serialized: SerializedError): WireErrorObject {
  const code = serialized.code === null ? undefined : unquoteText(serialized.code);
  return {
    kind: 'error',
    name: unquoteText(serialized.name),
    message: unquoteText(serialized.message),
    ...(code === undefined ? {} : { code }),
    ...(serialized.cause === null ? {} : { cause: toWire(serialized.cause) }),
  };
}

/**
 * The plain-data form of a thrown `Error`.
 *
 * @throws TypeError when `error` is not an `Error` (nothing in the inspection pipeline throws other values;
 *   callers treat this as "cannot index" and fall back to a full inspection).
 */
export function serializeError(error: unknown): SerializedError {
  if (!(error instanceof Error)) throw new TypeError('only Error instances can be serialized');
  const wire = serializeWireError(error);
  // An Error always serialises as kind 'error'; the check keeps the types honest.
  if (wire.kind !== 'error') throw new TypeError('only Error instances can be serialized');
  return fromWire(wire, 0);
}

/**
 * Rebuilds a serialized error with the wire codec's class rules (a `SessionLogError` by its code, the project's
 * named errors and the native `TypeError`/`RangeError`/`SyntaxError`/`ReferenceError` by name, anything else an
 * `Error` carrying the same name and code). Message, name and code are always exactly the serialized ones.
 *
 * @throws TypeError when a quoted text is damaged.
 */
export function rebuildError(serialized: SerializedError): Error {
  return rebuildWireError(toWire(serialized)) as Error;
}
