/**
 * The `dsh-session:` URI codec (SESSION-REFERENCE.md §4): scheme + unpadded base64url of the UTF-8
 * bytes of `JSON.stringify(sessionId)`. JSON first makes every JavaScript string, lone surrogates
 * included, survive the UTF-8 step; the strict decoder accepts only the one canonical spelling.
 */
import { Buffer } from 'node:buffer';
import { invalidReferenceUriError } from '../reference-errors.js';

/** The URI scheme, colon included. */
export const SESSION_REFERENCE_SCHEME = 'dsh-session:';

const BASE64URL_PAYLOAD = /^[A-Za-z0-9_-]+$/;

/** The canonical URI naming `sessionId` (matches `^dsh-session:[A-Za-z0-9_-]+$`). */
export function encodeSessionReferenceUri(sessionId: string): string {
  // JSON.stringify of a string is always well-formed UTF-16 (lone surrogates become \udxxx), so the
  // UTF-8 encoding below is lossless. Node's base64url output is unpadded.
  return SESSION_REFERENCE_SCHEME + Buffer.from(JSON.stringify(sessionId), 'utf8').toString('base64url');
}

/**
 * The session id named by a canonical URI. Every failure throws `SessionReferenceError`
 * `SESSION_REFERENCE_INVALID_REFERENCE` with message `invalid session reference URI <JSON uri>`:
 * wrong scheme or non-base64url payload without cause; a JSON parse error, a non-string value
 * (`TypeError('decoded session id is not a string')`) or a non-canonical spelling
 * (`TypeError('URI is not canonical')`) as cause.
 */
export function decodeSessionReferenceUri(uri: string): string {
  if (typeof uri !== 'string' || !uri.startsWith(SESSION_REFERENCE_SCHEME)) throw invalidReferenceUriError(uri);
  const payload = uri.slice(SESSION_REFERENCE_SCHEME.length);
  if (!BASE64URL_PAYLOAD.test(payload)) throw invalidReferenceUriError(uri);
  // Buffer's base64url decoder is lenient (ignores dangling bits) and its UTF-8 decoder maps invalid
  // sequences to U+FFFD without stripping a BOM; the canonical check below rejects all such inputs.
  const json = Buffer.from(payload, 'base64url').toString('utf8');
  let decoded: unknown;
  try {
    decoded = JSON.parse(json);
  } catch (parseError) {
    throw invalidReferenceUriError(uri, parseError);
  }
  if (typeof decoded !== 'string') throw invalidReferenceUriError(uri, new TypeError('decoded session id is not a string'));
  if (encodeSessionReferenceUri(decoded) !== uri) throw invalidReferenceUriError(uri, new TypeError('URI is not canonical'));
  return decoded;
}
