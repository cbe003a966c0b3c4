/**
 * The append-only byte log of one live session (ARCHITECTURE.md §3 "Live sources"): every event is
 * encoded once, when it is appended, as a framed msgpackr entry (protocol/wire/log-entry-codec.ts) into
 * `SharedArrayBuffer` chunks. A capture is O(1) — the published sealed chunks, the chunk being filled and
 * its current length — and a worker decodes that prefix in place, with no copy and no re-encoding.
 *
 * Chunks grow geometrically up to a cap and an entry never spans two chunks, so a chunk, once sealed,
 * never changes and appending never copies earlier bytes.
 */
import { randomBytes } from 'node:crypto';
import { assertEventDepth } from '../../../protocol/json-depth.js';
import { ENTRY_HEADER_BYTES, encodeLogPayload, writeEntryHeader } from '../../../protocol/wire/log-entry-codec.js';
import type { LiveLogCapture, SealedLiveChunks } from '../../../protocol/wire/live-log-codec.js';

/** The first chunk's size. */
export const FIRST_CHUNK_BYTES = 64 * 1024;

/** Chunks double until this size; a single larger entry gets a chunk of its own size. */
export const MAX_CHUNK_BYTES = 8 * 1024 * 1024;

const NO_SEALED: SealedLiveChunks = Object.freeze({ buffers: Object.freeze([]), lengths: Object.freeze([]) });

/** One live session's encoded log. */
export class LiveByteLog {
  /**
   * Names this log and no other, in any process: an index that follows the log (search) continues from a stored
   * `LiveLogPosition` only while the id is the same, and a session whose log was rebuilt gets a new one. Random
   * bytes, not `crypto.randomUUID()`: a dsh host that seeds its UUIDs sees the same draws with or without sessionctx
   * (docs/DSH.md §4).
   */
  readonly id: string = randomBytes(16).toString('hex');
  #sealed: SealedLiveChunks = NO_SEALED;
  #tail: SharedArrayBuffer;
  #tailView: Uint8Array;
  #tailLength = 0;
  #events = 0;
  #bytes = 0;

  /** An empty log with its first chunk. */
  constructor() {
    this.#tail = new SharedArrayBuffer(FIRST_CHUNK_BYTES);
    this.#tailView = new Uint8Array(this.#tail);
  }

  /** The number of events appended. */
  get events(): number {
    return this.#events;
  }

  /** The number of encoded bytes (entry frames included). */
  get byteLength(): number {
    return this.#bytes;
  }

  /**
   * Encodes `event` and appends it. O(size of the event); earlier bytes are never touched.
   *
   * @throws SessionLogError `SESSION_LOG_TOO_DEEP` (nothing appended) when the event nests deeper than SESSION-LOG.md
   *   §9.15a allows: msgpackr's encoder is recursive and would overflow the stack long before `JSON.stringify` does.
   */
  append(event: unknown): void {
    assertEventDepth(event);
    const { tag, payload } = encodeLogPayload(event);
    const size = ENTRY_HEADER_BYTES + payload.length;
    if (this.#tailLength + size > this.#tail.byteLength) this.#seal(size);
    writeEntryHeader(this.#tailView, this.#tailLength, tag, payload.length);
    this.#tailView.set(payload, this.#tailLength + ENTRY_HEADER_BYTES);
    this.#tailLength += size;
    this.#events += 1;
    this.#bytes += size;
  }

  /** The current prefix, O(1): later appends never change the bytes it names. */
  capture(): LiveLogCapture {
    return { sealed: this.#sealed, tail: this.#tail, tailLength: this.#tailLength, events: this.#events };
  }

  /** Publishes the filled chunk as sealed and starts one big enough for an entry of `needed` bytes. */
  #seal(needed: number): void {
    if (this.#tailLength > 0) {
      // A new frozen record, so captures taken earlier keep the list they were given.
      this.#sealed = Object.freeze({
        buffers: Object.freeze([...this.#sealed.buffers, this.#tail]),
        lengths: Object.freeze([...this.#sealed.lengths, this.#tailLength]),
      });
    }
    const next = Math.max(needed, Math.min(MAX_CHUNK_BYTES, this.#tail.byteLength * 2));
    this.#tail = new SharedArrayBuffer(next);
    this.#tailView = new Uint8Array(this.#tail);
    this.#tailLength = 0;
  }
}
