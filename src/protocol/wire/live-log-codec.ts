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
  let count = 0;
  const each = (event: unknown): void => {
    count += 1;
    onEvent(event);
  };
  const options = poll === undefined ? {} : { poll };
  capture.sealed.buffers.forEach((buffer, index) => {
    forEachLogEntry(localCopy(buffer, capture.sealed.lengths[index] ?? 0), each, options);
  });
  forEachLogEntry(localCopy(capture.tail, capture.tailLength), each, options);
  if (count !== capture.events) {
    throw new RangeError(`live log capture holds ${count} events, expected ${capture.events}`);
  }
}

/** Decodes the events of a captured prefix into an array, in log order (see {@link forEachLiveLogEvent}). */
export function decodeLiveLogCapture(capture: LiveLogCapture, poll?: () => void): unknown[] {
  const events: unknown[] = [];
  forEachLiveLogEvent(capture, (event) => events.push(event), poll);
  return events;
}

/** The first `length` bytes of a shared buffer, copied into an unshared one. */
function localCopy(buffer: SharedArrayBuffer, length: number): Uint8Array {
  return new Uint8Array(buffer, 0, length).slice();
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
