/**
 * Tag-safe JSON (SESSION-REFERENCE.md §11.2) and the byte measures of retention (§10.1). The prompt
 * embeds source data between literal tags, so `<` never appears raw; the measures predict the
 * serialised size per code point without building the string.
 */

const LESS_THAN = /</g;

/**
 * `JSON.stringify(value)` with every `<` replaced by `\u003c`; nothing else changes, so `JSON.parse`
 * of the result yields the original value. Throws `TypeError('session-reference data is not
 * JSON-serializable')` when `JSON.stringify` yields no string (e.g. `undefined`); its own errors
 * (cycles, BigInt) propagate.
 */
export function stringifyTagSafeJson(value: unknown): string {
  const json: unknown = JSON.stringify(value);
  if (typeof json !== 'string') throw new TypeError('session-reference data is not JSON-serializable');
  return json.replace(LESS_THAN, '\\u003c');
}

/**
 * Tag-safe JSON bytes of each ASCII code unit: 2 for `"`, `\` and the five short escapes, 6 for other
 * C0 controls and `<` (`\u00xx` / `\u003c`), 1 otherwise (DEL included).
 */
export const ASCII_JSON_BYTES: Uint8Array = (() => {
  const table = new Uint8Array(128).fill(1);
  for (let code = 0; code < 0x20; code += 1) table[code] = 6;
  for (const code of [0x08, 0x09, 0x0a, 0x0c, 0x0d, 0x22, 0x5c]) table[code] = 2;
  table[0x3c] = 6;
  return table;
})();

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/**
 * J(s) of §10.1: the UTF-8 byte length of `stringifyTagSafeJson(s)` for a string `s`, quotes
 * included, computed in one pass without serialising. Non-ASCII BMP code points cost their UTF-8
 * length (U+2028/2029 are not escaped), a surrogate pair 4, a lone surrogate 6 (`\udxxx`).
 */
export function tagSafeJsonStringBytes(text: string): number {
  return measureText(text, { raw: 0, json: 0 }).json;
}

/**
 * raw(s) of §10.1: the UTF-8 byte length of `s`, a lone surrogate counting 3 (it encodes as U+FFFD).
 */
export function utf8ByteLength(text: string): number {
  return measureText(text, { raw: 0, json: 0 }).raw;
}

/** Both retention measures of one text (§10.1). */
export interface TextMeasures {
  /** raw(s): {@link utf8ByteLength}. */
  raw: number;
  /** J(s): {@link tagSafeJsonStringBytes}. */
  json: number;
}

/**
 * {@link utf8ByteLength} and {@link tagSafeJsonStringBytes} of `text` in one pass, written into `into` (reused by
 * callers that measure many texts, so that no object is allocated per text). Retention measures every projected
 * text, so one scan instead of two is most of its measuring cost.
 */
export function measureText(text: string, into: TextMeasures): TextMeasures {
  let raw = 0;
  let json = 2;
  const length = text.length;
  for (let index = 0; index < length; index += 1) {
    const code = text.charCodeAt(index);
    if (code < 0x80) {
      raw += 1;
      json += ASCII_JSON_BYTES[code] ?? 1;
    } else if (code < 0x800) {
      raw += 2;
      json += 2;
    } else if (isHighSurrogate(code) && index + 1 < length && isLowSurrogate(text.charCodeAt(index + 1))) {
      raw += 4;
      json += 4;
      index += 1;
    } else if (isHighSurrogate(code) || isLowSurrogate(code)) {
      raw += 3;
      json += 6;
    } else {
      raw += 3;
      json += 3;
    }
  }
  into.raw = raw;
  into.json = json;
  return into;
}
