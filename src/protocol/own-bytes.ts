/**
 * A copy of a byte range that owns its memory. `Buffer#slice` is a view (unlike `Uint8Array#slice`), and the bytes a
 * scan keeps — a header line, a title line, a line fragment carried to the next read — were views into the whole file
 * it read: each kept the file's buffer alive for as long as the title index held its entry (65 MB of file buffers for
 * 5,000 sessions held by a title index of a few megabytes).
 */

/**
 * `bytes[start, end)` in a new `Uint8Array` of exactly that length, whatever `bytes` is (a `Buffer` or not).
 * @returns a fresh array (never a view of `bytes`' buffer).
 */
export function ownBytes(bytes: Uint8Array, start = 0, end = bytes.length): Uint8Array {
  return Uint8Array.prototype.slice.call(bytes, start, end);
}
