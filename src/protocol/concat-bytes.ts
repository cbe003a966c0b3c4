/**
 * Joining two byte ranges into one buffer (a header prefix read in two steps, a checkpoint's carried bytes and the
 * appended ones).
 */

/**
 * The bytes of `a` followed by those of `b`, in a new buffer.
 *
 * @returns a fresh `Uint8Array` of `a.byteLength + b.byteLength` bytes.
 */
export function concatBytes(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.byteLength + b.byteLength);
  out.set(a, 0);
  out.set(b, a.byteLength);
  return out;
}
