/**
 * The codec of every opaque page cursor sessionctx hands out (search pages, MCP resource lists): JSON as unpadded
 * base64url text. What a cursor holds and how it is checked belongs to the face or service that issued it; decoding
 * only says whether the text is one of ours at all.
 */

/** `value` as cursor text. */
export function encodeOpaqueCursor(value: unknown): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
}

/** The value a cursor holds, or `undefined` when the text is not base64url JSON (not a cursor sessionctx issued). */
export function decodeOpaqueCursor(cursor: string): unknown {
  try {
    return JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}
