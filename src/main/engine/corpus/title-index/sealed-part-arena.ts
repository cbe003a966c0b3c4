/**
 * Where the sealed parts of one index write are kept (issue 27 item 3, memory per session). A part the encoder
 * returns is a view of its shared output buffer, which also receives the file frames written after it: kept as
 * such, each part held about twice its bytes alive. A buffer of its own per part costs an allocation and an array
 * object each (two per session). An arena per write copies the parts it seals into chunks that hold nothing else,
 * growing from {@link FIRST_CHUNK_BYTES} to {@link MAX_CHUNK_BYTES}: a write of one changed entry holds a few
 * kilobytes, a first write of 100,000 entries quarter-mebibyte chunks. A chunk lives while any part in it does, and
 * the parts of one write are replaced together only as their sessions change, so what an arena wastes is bounded by
 * the parts of its own write.
 */
import { ownBytes } from '../../../../protocol/own-bytes.js';

/** The first chunk's size: a write of a few changed entries fits. */
const FIRST_CHUNK_BYTES = 4 * 1024;
/** The largest chunk; a part above a quarter of it gets a buffer of its own. */
const MAX_CHUNK_BYTES = 256 * 1024;

/** The chunks of one write; see the module comment. */
export class SealedPartArena {
  #chunk = new Uint8Array(0);
  #used = 0;
  #nextSize = FIRST_CHUNK_BYTES;

  /**
   * A copy of `bytes` that shares its buffer only with other parts of this arena.
   * @param bytes - a part as the encoder returned it (a view of its shared buffer)
   * @returns the kept copy, of exactly `bytes.length`
   */
  keep(bytes: Uint8Array): Uint8Array {
    if (bytes.length > MAX_CHUNK_BYTES / 4) return ownBytes(bytes);
    if (this.#used + bytes.length > this.#chunk.length) {
      const size = Math.max(this.#nextSize, bytes.length);
      this.#chunk = new Uint8Array(size);
      this.#used = 0;
      this.#nextSize = Math.min(MAX_CHUNK_BYTES, size * 2);
    }
    const kept = this.#chunk.subarray(this.#used, this.#used + bytes.length);
    kept.set(bytes);
    this.#used += bytes.length;
    return kept;
  }
}
