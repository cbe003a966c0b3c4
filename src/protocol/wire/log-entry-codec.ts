/**
 * The byte format of events that cross a thread boundary (ARCHITECTURE.md §2, msgpackr): a sequence of
 * framed entries, each one event. Frame = 1 tag byte, 4-byte little-endian payload length, payload.
 *
 * Tag 0 is a self-contained msgpackr record (each `pack` call writes the record structures it uses, so
 * any entry decodes on its own, in any thread). msgpackr is not lossless for every JSON value: it
 * re-encodes lone surrogates as U+FFFD and renames an own `__proto__` key, both of which a session log may
 * legally contain (`JSON.parse` produces them). Such an event is written as tag 1, its JSON text, which
 * round-trips them exactly. The check is one walk over the event, the same order of cost as encoding it.
 */
// The plain-JavaScript entry (in Node, `msgpackr/pack` is the package without its native string extractor, which
// costs every process's start-up a probe of the C library); worker threads enable the extractor (workers/entry.ts).
import { Packr, Unpackr } from 'msgpackr/pack';

/** Bytes of one entry frame before its payload. */
export const ENTRY_HEADER_BYTES = 5;

/** Payload encodings of an entry. */
const TAG_MSGPACK = 0;
const TAG_JSON = 1;

// One codec per thread and direction (msgpackr keeps per-instance buffers and record transitions).
const packr = new Packr();
const unpackr = new Unpackr();
const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder();

/** `String.prototype.isWellFormed` (ES2024; present on Node 20, absent from this project's ES2023 lib types). */
function isWellFormed(text: string): boolean {
  return (text as unknown as { isWellFormed(): boolean }).isWellFormed();
}

/** True when msgpackr reproduces `value` exactly: no lone surrogate in any string or key, no `__proto__` key. */
export function isMsgpackSafe(value: unknown): boolean {
  const pending: unknown[] = [value];
  for (let next = pending.pop(); next !== undefined || pending.length > 0; next = pending.pop()) {
    if (typeof next === 'string') {
      if (!isWellFormed(next)) return false;
      continue;
    }
    if (typeof next !== 'object' || next === null) continue;
    if (Array.isArray(next)) {
      for (const item of next) pending.push(item);
      continue;
    }
    for (const key of Object.keys(next)) {
      if (key === '__proto__' || !isWellFormed(key)) return false;
      pending.push((next as Record<string, unknown>)[key]);
    }
  }
  return true;
}

/** One encoded event before framing: its tag and payload bytes. */
export interface EncodedLogPayload {
  readonly tag: number;
  /** Views a codec-owned buffer region that later calls never overwrite; its `ArrayBuffer` is shared, so copy before transferring. */
  readonly payload: Uint8Array;
}

/** Encodes one event's payload (msgpackr, or JSON text when msgpackr would not round-trip it). */
export function encodeLogPayload(event: unknown): EncodedLogPayload {
  return isMsgpackSafe(event)
    ? { tag: TAG_MSGPACK, payload: packr.pack(event) }
    : { tag: TAG_JSON, payload: utf8Encoder.encode(JSON.stringify(event)) };
}

/** Writes the frame header of an entry with this tag and payload length at `offset` of `target`. */
export function writeEntryHeader(target: Uint8Array, offset: number, tag: number, payloadLength: number): void {
  target[offset] = tag;
  new DataView(target.buffer, target.byteOffset, target.byteLength).setUint32(offset + 1, payloadLength, true);
}

/** Encodes one event as a whole framed entry in a fresh buffer. */
export function encodeLogEntry(event: unknown): Uint8Array {
  const { tag, payload } = encodeLogPayload(event);
  const entry = new Uint8Array(ENTRY_HEADER_BYTES + payload.length);
  writeEntryHeader(entry, 0, tag, payload.length);
  entry.set(payload, ENTRY_HEADER_BYTES);
  return entry;
}

/**
 * Encodes events as consecutive framed entries into one fresh, exactly sized `ArrayBuffer` that the
 * caller may transfer. `poll` runs every 256 events.
 */
export function encodeLogEntries(events: readonly unknown[], poll?: () => void): Uint8Array {
  const payloads: EncodedLogPayload[] = new Array<EncodedLogPayload>(events.length);
  let total = 0;
  for (let index = 0; index < events.length; index++) {
    const encoded = encodeLogPayload(events[index]);
    payloads[index] = encoded;
    total += ENTRY_HEADER_BYTES + encoded.payload.length;
    if (poll !== undefined && index % 256 === 255) poll();
  }
  const out = new Uint8Array(total);
  let offset = 0;
  for (const { tag, payload } of payloads) {
    writeEntryHeader(out, offset, tag, payload.length);
    out.set(payload, offset + ENTRY_HEADER_BYTES);
    offset += ENTRY_HEADER_BYTES + payload.length;
  }
  return out;
}

/** Decodes every entry of `bytes` into an array (see {@link forEachLogEntry}). */
export function decodeLogEntries(bytes: Uint8Array, poll?: () => void): unknown[] {
  const events: unknown[] = [];
  forEachLogEntry(bytes, (event) => events.push(event), poll === undefined ? {} : { poll });
  return events;
}

/**
 * Decodes the entries of `bytes[start, end)` in order, calling `onEntry` with each event. `poll`, when
 * given, runs every `pollEvery` entries (workers check their control port there).
 *
 * @throws RangeError when the bytes are not a whole number of well-formed frames.
 */
export function forEachLogEntry(
  bytes: Uint8Array,
  onEntry: (event: unknown) => void,
  options: { readonly start?: number; readonly end?: number; readonly poll?: () => void; readonly pollEvery?: number } = {},
): number {
  const end = options.end ?? bytes.length;
  const pollEvery = options.pollEvery ?? 256;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let offset = options.start ?? 0;
  let count = 0;
  while (offset < end) {
    if (offset + ENTRY_HEADER_BYTES > end) throw new RangeError(`truncated log entry header at byte ${offset}`);
    const tag = bytes[offset];
    const length = view.getUint32(offset + 1, true);
    const payloadStart = offset + ENTRY_HEADER_BYTES;
    const payloadEnd = payloadStart + length;
    if (payloadEnd > end) throw new RangeError(`truncated log entry at byte ${offset}`);
    switch (tag) {
      case TAG_MSGPACK:
        onEntry(unpackr.unpack(bytes, { start: payloadStart, end: payloadEnd }));
        break;
      case TAG_JSON:
        onEntry(JSON.parse(utf8Decoder.decode(bytes.subarray(payloadStart, payloadEnd))));
        break;
      default:
        throw new RangeError(`unknown log entry tag ${String(tag)} at byte ${offset}`);
    }
    offset = payloadEnd;
    count += 1;
    if (options.poll !== undefined && count % pollEvery === 0) options.poll();
  }
  return count;
}
