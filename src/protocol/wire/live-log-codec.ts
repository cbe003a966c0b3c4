/**
 * A captured prefix of a live session's byte log (ARCHITECTURE.md §3 "Live sources"): the main thread
 * keeps each live log as framed entries (log-entry-codec.ts) in a list of `SharedArrayBuffer` chunks,
 * encoded once per append; a capture names the chunks and how many bytes of each belong to the prefix,
 * so a worker decodes exactly the events that existed at capture time; the main thread never copies or
 * re-encodes the log to capture it.
 */
import { forEachLogEntry } from './log-entry-codec.js';

/** The sealed chunks of a live log: their buffers and used lengths, never changed once published. */
export interface SealedLiveChunks {
  readonly buffers: readonly SharedArrayBuffer[];
  readonly lengths: readonly number[];
}

/** A prefix of a live byte log: the sealed chunks, then `tailLength` bytes of the chunk being filled. */
export interface LiveLogCapture {
  readonly sealed: SealedLiveChunks;
  readonly tail: SharedArrayBuffer;
  readonly tailLength: number;
  /** The number of events in the prefix. */
  readonly events: number;
}

/**
 * A point in a live byte log between two entries: the chunk (the sealed chunks in order, then the tail), the byte
 * offset inside it, and how many events lie before it. Chunks are sealed in place and never change, and the tail only
 * grows, so a position taken from one capture stays valid in every later capture of the same log.
 */
export interface LiveLogPosition {
  readonly chunk: number;
  readonly offset: number;
  readonly events: number;
}

/** The start of every live log. */
export const LIVE_LOG_START: LiveLogPosition = Object.freeze({ chunk: 0, offset: 0, events: 0 });

/**
 * Decodes the events of a captured prefix one by one, in log order, calling `onEvent` with each, so a caller that
 * folds them need not hold the whole log. `poll` runs every 256 events.
 *
 * Each chunk's captured bytes are first copied into this thread's own memory: V8 reads shared memory
 * several times slower than local memory, and one `memcpy` per chunk is far cheaper than decoding from
 * the shared buffer in place (bench/transport-codec.ts measures both). The main thread copies nothing.
 *
 * @throws RangeError when the captured bytes are not whole entries, or the count differs from `events`.
 */
export function forEachLiveLogEvent(capture: LiveLogCapture, onEvent: (event: unknown) => void, poll?: () => void): void {
  forEachLiveLogEventFrom(capture, LIVE_LOG_START, onEvent, poll);
}

/**
 * Like {@link forEachLiveLogEvent}, but decodes only the entries after `from` (a position an earlier capture of the
 * same log ended at): an index that follows a live log reads only what was appended since.
 *
 * @returns the position at the end of the capture (for the next call).
 * @throws RangeError when `from` lies outside the capture, the bytes are not whole entries, or the count differs.
 */
export function forEachLiveLogEventFrom(
  capture: LiveLogCapture,
  from: LiveLogPosition,
  onEvent: (event: unknown) => void,
  poll?: () => void,
): LiveLogPosition {
  const chunks = [...capture.sealed.buffers, capture.tail];
  const lengths = [...capture.sealed.lengths, capture.tailLength];
  if (!Number.isSafeInteger(from.chunk) || from.chunk < 0 || from.chunk >= chunks.length) {
    throw new RangeError(`live log position names chunk ${from.chunk} of ${chunks.length}`);
  }
  if (!Number.isSafeInteger(from.offset) || from.offset < 0 || from.offset > (lengths[from.chunk] ?? 0) || from.events > capture.events) {
    throw new RangeError('live log position lies past the captured prefix');
  }
  let count = from.events;
  const each = (event: unknown): void => {
    count += 1;
    onEvent(event);
  };
  const options = poll === undefined ? {} : { poll };
  for (let index = from.chunk; index < chunks.length; index++) {
    const start = index === from.chunk ? from.offset : 0;
    forEachLogEntry(localCopy(chunks[index] as SharedArrayBuffer, start, lengths[index] ?? 0), each, options);
  }
  if (count !== capture.events) {
    throw new RangeError(`live log capture holds ${count} events, expected ${capture.events}`);
  }
  return { chunk: chunks.length - 1, offset: capture.tailLength, events: count };
}

/** Decodes the events of a captured prefix into an array, in log order (see {@link forEachLiveLogEvent}). */
export function decodeLiveLogCapture(capture: LiveLogCapture, poll?: () => void): unknown[] {
  const events: unknown[] = [];
  forEachLiveLogEvent(capture, (event) => events.push(event), poll);
  return events;
}

/** Bytes `[start, end)` of a shared buffer, copied into an unshared one. */
function localCopy(buffer: SharedArrayBuffer, start: number, end: number): Uint8Array {
  return new Uint8Array(buffer, start, end - start).slice();
}

/** True when `value` has the shape of a {@link LiveLogCapture} (a task payload is checked before use). */
export function isLiveLogCapture(value: unknown): value is LiveLogCapture {
  if (typeof value !== 'object' || value === null) return false;
  const capture = value as Record<string, unknown>;
  const sealed = capture['sealed'] as Record<string, unknown> | null | undefined;
  if (typeof sealed !== 'object' || sealed === null) return false;
  const buffers = sealed['buffers'];
  const lengths = sealed['lengths'];
  return (
    Array.isArray(buffers) &&
    Array.isArray(lengths) &&
    buffers.length === lengths.length &&
    buffers.every((buffer) => buffer instanceof SharedArrayBuffer) &&
    lengths.every(
      (length, index) => Number.isSafeInteger(length) && length >= 0 && length <= (buffers[index] as SharedArrayBuffer).byteLength,
    ) &&
    capture['tail'] instanceof SharedArrayBuffer &&
    Number.isSafeInteger(capture['tailLength']) &&
    (capture['tailLength'] as number) >= 0 &&
    (capture['tailLength'] as number) <= capture['tail'].byteLength &&
    Number.isSafeInteger(capture['events']) &&
    (capture['events'] as number) >= 0
  );
}
