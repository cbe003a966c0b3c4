/**
 * Exact plain-data encodings for what a title checkpoint keeps of stored events (SESSION-LOG.md §10.7).
 *
 * A checkpoint crosses thread boundaries and is persisted with msgpackr, and neither UTF-8 nor msgpack carries
 * every JavaScript string: a lone surrogate (legal in a parsed JSON string, and therefore in session ids, event
 * types and error messages built from them) becomes U+FFFD. JSON text escapes lone surrogates, so values and
 * free-form strings are kept as their `JSON.stringify` text, which round-trips through any UTF-8 transport.
 */

/**
 * A JSON value read from a stored event, as its JSON text; the empty string stands for `undefined` (a missing
 * field), which JSON cannot spell. `-0` is kept as `0`: every use (Map keys compared with SameValueZero, closer
 * payloads that no validation rule reads) treats the two alike.
 */
export type EncodedValue = string;

/** The {@link EncodedValue} of `value` (a value produced by `JSON.parse`, or `undefined`). */
export function encodeValue(value: unknown): EncodedValue {
  return value === undefined ? '' : JSON.stringify(value);
}

/** The value an {@link EncodedValue} stands for, as a fresh object graph. */
export function decodeValue(encoded: EncodedValue): unknown {
  return encoded === '' ? undefined : (JSON.parse(encoded) as unknown);
}

/** A free-form string kept as its JSON string literal (see the module comment). */
export type QuotedText = string;

/** The {@link QuotedText} of `text`. */
export function quoteText(text: string): QuotedText {
  return JSON.stringify(text);
}

/**
 * The string a {@link QuotedText} stands for.
 *
 * @throws TypeError when `quoted` is not the JSON text of a string (a damaged checkpoint).
 */
export function unquoteText(quoted: QuotedText): string {
  const text: unknown = JSON.parse(quoted);
  if (typeof text !== 'string') throw new TypeError('quoted text does not hold a string');
  return text;
}
