/**
 * Builds *stored* Zstandard frames (raw blocks of chosen sizes plus the content checksum), the way the
 * worked example of SESSION-LOG.md §9.9 is built, so that tests can cut frames at exact block boundaries
 * (SESSION-LOG.md §9.17 "A test utility MAY also emit stored frames").
 */
import { xxh64Low32 } from '../../src/workers/decode/xxh64.js';

/** Options of {@link storedFrame}. */
export interface StoredFrameOptions {
  /**
   * Write a single-segment frame with a content-size field (descriptor 0x24 for sizes below 256, as in
   * the §9.9 example). Default: a windowed frame without content size (descriptor 0x04, 128 KiB window),
   * the shape Node's streaming compressor — and therefore dsh — writes.
   */
  readonly singleSegment?: boolean;
}

/** The 3-byte little-endian block header of a raw block. */
function rawBlockHeader(size: number, last: boolean): number[] {
  const value = (size << 3) | (last ? 1 : 0); // type 0 (Raw) in bits 1–2
  return [value & 0xff, (value >>> 8) & 0xff, (value >>> 16) & 0xff];
}

/**
 * A checksummed frame holding `plaintext` in raw blocks of `blockSizes` bytes (which must add up to the
 * plaintext length; each at most 128 KiB; zero-size blocks are allowed).
 */
export function storedFrame(plaintext: Uint8Array, blockSizes: readonly number[], options: StoredFrameOptions = {}): Uint8Array {
  const total = blockSizes.reduce((sum, size) => sum + size, 0);
  if (total !== plaintext.length) throw new RangeError(`block sizes add up to ${total}, plaintext has ${plaintext.length} bytes`);
  if (blockSizes.length === 0) throw new RangeError('a frame needs at least one block');
  if (blockSizes.some((size) => size < 0 || size > 131072)) throw new RangeError('raw block sizes must be 0…131072');
  const bytes: number[] = [0x28, 0xb5, 0x2f, 0xfd];
  if (options.singleSegment === true) {
    if (plaintext.length < 256) {
      bytes.push(0x24, plaintext.length);
    } else if (plaintext.length < 65536 + 256) {
      const stored = plaintext.length - 256; // 2-byte content sizes are stored minus 256
      bytes.push(0x64, stored & 0xff, stored >>> 8);
    } else {
      const size = plaintext.length;
      bytes.push(0xa4, size & 0xff, (size >>> 8) & 0xff, (size >>> 16) & 0xff, size >>> 24);
    }
  } else {
    bytes.push(0x04, (17 - 10) << 3); // window 2^17 = the largest block size
  }
  let offset = 0;
  blockSizes.forEach((size, i) => {
    bytes.push(...rawBlockHeader(size, i === blockSizes.length - 1));
    for (let k = 0; k < size; k++) bytes.push(plaintext[offset + k] as number);
    offset += size;
  });
  const checksum = xxh64Low32(plaintext);
  bytes.push(checksum & 0xff, (checksum >>> 8) & 0xff, (checksum >>> 16) & 0xff, checksum >>> 24);
  return Uint8Array.from(bytes);
}

/** Concatenates byte arrays. */
export function concatBytes(...parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/** UTF-8 bytes of `text`. */
export function utf8Bytes(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}
