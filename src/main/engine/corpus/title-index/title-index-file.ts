/**
 * The byte format of the title index file (SESSION-LOG.md §10.7): one msgpackr-encoded record
 * `{format, version, root, entries}`: `root` the real path of the session root the index describes, `entries`
 * a list of sealed entries `[answer, answerSum, checkpoint, checkpointSum]`. `answer` is the msgpack encoding of
 * `[key, {dev, ino, size, mtimeNs, ctimeNs, outcome}]` (`key` the artifact path relative to the root, so a root
 * reached through a symlink shares the entries of the root itself), `checkpoint` the msgpack encoding of
 * `{headerDigest, resumeOffset, guard, state}`, and each `…Sum` the first 16 lower-case hex digits of the SHA-256 of
 * exactly those bytes.
 *
 * Integrity: a file that does not decode (a truncation, damaged framing), names another format or version, has
 * no root, or holds no entry list is discarded as a whole. An entry whose answer checksum fails, or whose answer
 * does not decode to a well-formed key and answer, is discarded alone (counted in `discarded`). The checkpoint
 * part stays sealed until a continued scan needs it ({@link openCheckpoint}): its checksum is verified then, so a
 * stat-only answer pays for hashing the small answer part only, and a damaged checkpoint only costs a full scan.
 * A bit flip anywhere thus either discards what it touched or leaves the decoded values unchanged.
 */
import { hash } from 'node:crypto';
import { posix, win32 } from 'node:path';
// The plain-JavaScript entry: see protocol/wire/log-entry-codec.ts.
import { Packr } from 'msgpackr/pack';
import { TimeSlice, type TimeSliceOptions } from '../../../../io/time-slice.js';
import { yieldToEventLoop } from '../../../../io/yield-to-event-loop.js';
import { SealedPartArena } from './sealed-part-arena.js';
import {
  isTitleIndexAnswer,
  isTitleIndexCheckpoint,
  type TitleIndexAnswer,
  type TitleIndexCheckpoint,
  type TitleIndexEntry,
} from './title-index-entry.js';

/** The `format` tag of an index file. */
export const TITLE_INDEX_FORMAT = 'sessionctx-title-index';

/**
 * The version this build reads and writes; any other version is discarded and rebuilt. Version 2 sealed every
 * entry with checksums (version 1 had none); version 3 takes them from SHA-256 instead of a JavaScript XXH64, a
 * tenth of the cost (issue 27 item 6: the hashing was most of the index file's encoding on the host's thread).
 */
export const TITLE_INDEX_VERSION = 3;

/**
 * Plain maps, no shared record structures: the file must decode on its own, in any process. Every string in an
 * entry is well-formed (JSON texts, digests, decimal strings, checked paths), because msgpack's UTF-8 cannot
 * carry lone surrogates.
 */
const packr = new Packr({ useRecords: false, mapsAsObjects: true });

/** A lone surrogate, which UTF-8 (and so msgpack) cannot carry. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** True when `path` can be an index key (it survives UTF-8 encoding unchanged). */
export function isIndexablePath(path: string): boolean {
  return !LONE_SURROGATE.test(path);
}

/** A checkpoint part as the file stores it: its msgpack bytes and their checksum, verified on first use. */
export interface SealedCheckpoint {
  readonly kind: 'sealed';
  readonly bytes: Uint8Array;
  /** {@link checksumOf} {@link bytes} as the file stored it: 16 lower-case hex digits, unverified until opened. */
  readonly checksum: string;
}

/** A checkpoint part already decoded (and verified, if it came from a file). */
export interface OpenCheckpoint {
  readonly kind: 'open';
  readonly value: TitleIndexCheckpoint;
}

/** An entry as held by the index: the verified answer, and the checkpoint open or still sealed. */
export interface HeldTitleIndexEntry extends TitleIndexAnswer {
  readonly checkpoint: OpenCheckpoint | SealedCheckpoint;
}

/** The content of an index file. */
export interface TitleIndexFileContent {
  /** The real path of the session root the entries belong to. */
  readonly root: string;
  /** Entries (answer verified) by artifact path relative to {@link root}. */
  readonly entries: Map<string, HeldTitleIndexEntry>;
  /** How many entries were discarded: answer checksum failed, or the answer did not decode to a valid entry. */
  readonly discarded: number;
}

/** The first 16 lower-case hex digits of the SHA-256 of `bytes`: the checksum rule of every sealed part. */
export function checksumOf(bytes: Uint8Array): string {
  return hash('sha256', bytes, 'hex').slice(0, 16);
}

/** A held entry from a fully decoded one (a fresh scan result). */
export function holdEntry(entry: TitleIndexEntry): HeldTitleIndexEntry {
  const { dev, ino, size, mtimeNs, ctimeNs, outcome, headerDigest, resumeOffset, guard, state } = entry;
  return { dev, ino, size, mtimeNs, ctimeNs, outcome, checkpoint: { kind: 'open', value: { headerDigest, resumeOffset, guard, state } } };
}

/** A sealed entry as written: `[answer, answerSum, checkpoint, checkpointSum]`. */
type SealedEntry = [Uint8Array, string, Uint8Array, string];

/** A sealed entry with the key it was sealed under. */
interface SealedForm {
  readonly key: string;
  readonly sealed: SealedEntry;
}

/**
 * The sealed form of each entry object, with the key it was sealed under: an entry read from the file is written
 * back with the bytes it was read with, and a fresh one is encoded and hashed once, not on every write (a long-lived
 * process rewrites the file after each burst). Entries are immutable, so the object identifies its bytes.
 */
const sealedForms = new WeakMap<HeldTitleIndexEntry, SealedForm>();

/** Checkpoints already verified and decoded, by their sealed part: each is hashed once per process. */
const openedCheckpoints = new WeakMap<SealedCheckpoint, TitleIndexCheckpoint>();

/**
 * The checkpoint part of `entry`, verified and decoded; `undefined` when its checksum fails or it does not decode
 * to a well-formed checkpoint (the caller discards it and scans from offset 0).
 */
export function openCheckpoint(entry: HeldTitleIndexEntry): TitleIndexCheckpoint | undefined {
  const part = entry.checkpoint;
  if (part.kind === 'open') return part.value;
  const opened = openedCheckpoints.get(part);
  if (opened !== undefined) return opened;
  if (checksumOf(part.bytes) !== part.checksum) return undefined;
  let value: unknown;
  try {
    value = packr.unpack(part.bytes);
  } catch {
    // Bytes that match their checksum but do not decode were written wrong: treated like a damaged checkpoint.
    return undefined;
  }
  if (!isTitleIndexCheckpoint(value)) return undefined;
  openedCheckpoints.set(part, value);
  return value;
}

/** The fully decoded entry (both parts), or `undefined` when its checkpoint is damaged. */
export function openEntry(entry: HeldTitleIndexEntry): TitleIndexEntry | undefined {
  const checkpoint = openCheckpoint(entry);
  if (checkpoint === undefined) return undefined;
  const { dev, ino, size, mtimeNs, ctimeNs, outcome } = entry;
  return { dev, ino, size, mtimeNs, ctimeNs, outcome, ...checkpoint };
}

/**
 * True when `path` can key an entry: relative, non-empty, without a `..` component (it stays inside the
 * root), and indexable. Both separators count, so a file written on one platform is judged the same on another.
 */
export function isEntryKey(path: string): boolean {
  if (path === '' || posix.isAbsolute(path) || win32.isAbsolute(path)) return false;
  return isIndexablePath(path) && !path.split(/[\\/]/u).includes('..');
}

function sealEntry(key: string, entry: HeldTitleIndexEntry, arena: SealedPartArena): SealedForm {
  const known = sealedForms.get(entry);
  if (known !== undefined && known.key === key) return known;
  const { dev, ino, size, mtimeNs, ctimeNs, outcome } = entry;
  // Each part in a buffer of its own size: a part kept as a view of the encoder's shared buffer would keep the whole
  // buffer alive, with the file frames written into it beside the parts (about twice the parts' bytes held).
  const answer = arena.keep(packr.pack([key, { dev, ino, size, mtimeNs, ctimeNs, outcome }]));
  const part = entry.checkpoint;
  let sealed: SealedEntry;
  // A still-sealed checkpoint is written back as read, checksum included: damage stays detectable, never laundered.
  if (part.kind === 'sealed') {
    sealed = [answer, checksumOf(answer), part.bytes, part.checksum];
  } else {
    const checkpoint = arena.keep(packr.pack(part.value));
    sealed = [answer, checksumOf(answer), checkpoint, checksumOf(checkpoint)];
  }
  const form: SealedForm = { key, sealed };
  sealedForms.set(entry, form);
  return form;
}

/**
 * The msgpack element of the file's entry list for `entry` under `key`. Its parts are sealed once per entry object;
 * the element itself is packed at each write (a copy of four parts: cheap), not kept, so memory holds each entry's
 * bytes once.
 */
function entryFrame(key: string, entry: HeldTitleIndexEntry | TitleIndexEntry, arena: SealedPartArena): Uint8Array {
  return packr.pack(sealEntry(key, 'checkpoint' in entry ? entry : holdEntry(entry), arena).sealed);
}

/**
 * The bytes before the entry list's elements: the record `{format, version, root, entries}` as a 4-entry map whose
 * last value is an array of `count` elements. The record is written a part at a time, so the entries can be
 * encoded in slices; each part is msgpack, so the whole is the same value `pack` of the record would give (an
 * `array 32` header whatever the count: valid msgpack, decoded like the shorter headers).
 */
function recordHead(root: string, count: number): Uint8Array {
  const arrayHead = new Uint8Array(5);
  arrayHead[0] = 0xdd;
  new DataView(arrayHead.buffer).setUint32(1, count);
  const parts = ['format', TITLE_INDEX_FORMAT, 'version', TITLE_INDEX_VERSION, 'root', root, 'entries'].map((value) => packr.pack(value));
  return Buffer.concat([Uint8Array.of(0x84), ...parts, arrayHead]);
}

/** Encodes an index file for the root at `root` (its real path); entry keys are paths relative to it. */
export function encodeTitleIndex(root: string, entries: ReadonlyMap<string, HeldTitleIndexEntry | TitleIndexEntry>): Uint8Array {
  const arena = new SealedPartArena();
  const frames = [...entries].map(([key, entry]) => entryFrame(key, entry, arena));
  return Buffer.concat([recordHead(root, frames.length), ...frames]);
}

/**
 * Entries decoded between two hops of {@link decodeTitleIndexInSlices} (msgpack's reader runs them in one call, so
 * the slice is counted): well under a millisecond of decoding.
 */
export const TITLE_INDEX_DECODE_SLICE_ENTRIES = 64;

/** Bytes gathered into one block of {@link encodeTitleIndexInSlices}' output before it starts the next. */
const ENCODE_BLOCK_BYTES = 1024 * 1024;

/**
 * {@link encodeTitleIndex} for a host's thread (issue 27 item 6): the same bytes, as blocks of about a mebibyte,
 * with a macrotask hop whenever a slice has run its time budget ({@link TimeSlice}: a fresh entry is an encoding and a
 * hash, a known one a lookup) and after each block, so encoding a large index never holds the event loop. `keyOf`
 * maps each entry's own key to its file key (`undefined`: not persisted), so that work is sliced too.
 * @param slicing - the slices' budget, hop and clock (defaults: {@link TimeSlice}'s; tests drive them).
 */
export async function encodeTitleIndexInSlices<Key>(
  root: string,
  entries: ReadonlyMap<Key, HeldTitleIndexEntry>,
  keyOf: (key: Key) => string | undefined,
  slicing: TimeSliceOptions = {},
): Promise<Uint8Array[]> {
  const frames: Uint8Array[] = [];
  const arena = new SealedPartArena();
  const slice = new TimeSlice(slicing);
  for (const [ownKey, entry] of entries) {
    if (slice.due()) await slice.hop();
    const key = keyOf(ownKey);
    if (key !== undefined) frames.push(entryFrame(key, entry, arena));
  }
  const blocks: Uint8Array[] = [recordHead(root, frames.length)];
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  for (const frame of frames) {
    pending.push(frame);
    pendingBytes += frame.length;
    if (pendingBytes >= ENCODE_BLOCK_BYTES) {
      blocks.push(Buffer.concat(pending, pendingBytes));
      pending = [];
      pendingBytes = 0;
      await slice.hop();
    }
  }
  if (pending.length > 0) blocks.push(Buffer.concat(pending, pendingBytes));
  return blocks;
}

function isHex64(value: unknown): value is string {
  return typeof value === 'string' && /^[0-9a-f]{16}$/.test(value);
}

/** The entry a sealed quadruple stands for, or `undefined` when it must be discarded. */
function unsealEntry(sealed: unknown): [string, HeldTitleIndexEntry] | undefined {
  if (!Array.isArray(sealed) || sealed.length !== 4) return undefined;
  const [answer, answerSum, checkpoint, checkpointSum] = sealed as unknown[];
  if (!(answer instanceof Uint8Array) || !isHex64(answerSum) || !(checkpoint instanceof Uint8Array) || !isHex64(checkpointSum))
    return undefined;
  if (checksumOf(answer) !== answerSum) return undefined;
  let decoded: unknown;
  try {
    decoded = packr.unpack(answer);
  } catch {
    // Bytes that match their checksum but do not decode were written wrong: the entry is discarded.
    return undefined;
  }
  if (!Array.isArray(decoded) || decoded.length !== 2) return undefined;
  const [key, value] = decoded as [unknown, unknown];
  if (typeof key !== 'string' || !isEntryKey(key) || !isTitleIndexAnswer(value)) return undefined;
  const { dev, ino, size, mtimeNs, ctimeNs, outcome } = value;
  const entry: HeldTitleIndexEntry = {
    dev,
    ino,
    size,
    mtimeNs,
    ctimeNs,
    outcome,
    checkpoint: { kind: 'sealed', bytes: checkpoint, checksum: checkpointSum },
  };
  sealedForms.set(entry, { key, sealed: [answer, answerSum, checkpoint, checkpointSum] });
  return [key, entry];
}

/**
 * The sealed twin of an entry this build has sealed (written): its answer decoded from the sealed answer bytes (so
 * its header and title lines are views into the encoder's shared buffers, not two arrays of their own) and its
 * checkpoint left sealed, verified and decoded again only when a continued scan needs it (issue 27 item 3: an open
 * checkpoint is a graph of a few dozen objects per session, held a second time beside its sealed bytes). An entry
 * never sealed, or already sealed, is returned as it is.
 */
export function sealedTwin(entry: HeldTitleIndexEntry): HeldTitleIndexEntry {
  if (entry.checkpoint.kind === 'sealed') return entry;
  const form = sealedForms.get(entry);
  const decoded = form === undefined ? undefined : unsealEntry(form.sealed)?.[1];
  if (form === undefined || decoded === undefined) return entry;
  // The revision's strings are the entry's own (equal to the decoded ones): only the outcome's lines become views.
  const { dev, ino, size, mtimeNs, ctimeNs } = entry;
  const twin: HeldTitleIndexEntry = { dev, ino, size, mtimeNs, ctimeNs, outcome: decoded.outcome, checkpoint: decoded.checkpoint };
  // The twin is the same entry sealed the same way: it shares the form (its key and parts) instead of a decoded copy.
  sealedForms.set(twin, form);
  return twin;
}

/**
 * The content of an index file, or `undefined` when the file must be discarded (not msgpack, truncated, another
 * format or version, no root, or no entry list). Entries failing their answer checksum are left out and counted.
 */
export function decodeTitleIndex(bytes: Uint8Array): TitleIndexFileContent | undefined {
  let content: unknown;
  try {
    content = packr.unpack(bytes);
  } catch {
    // Undecodable bytes are a corrupt index: the caller discards it and rebuilds.
    return undefined;
  }
  if (typeof content !== 'object' || content === null) return undefined;
  const { format, version, root, entries } = content as Record<string, unknown>;
  if (
    format !== TITLE_INDEX_FORMAT ||
    version !== TITLE_INDEX_VERSION ||
    typeof root !== 'string' ||
    root === '' ||
    !Array.isArray(entries)
  )
    return undefined;
  const out = new Map<string, HeldTitleIndexEntry>();
  let discarded = 0;
  for (const sealed of entries as unknown[]) {
    const entry = unsealEntry(sealed);
    if (entry === undefined) discarded += 1;
    else out.set(entry[0], entry[1]);
  }
  return { root, entries: out, discarded };
}

/** The record's keys and fixed values before the entry list, in the order {@link recordHead} writes them. */
const HEAD_VALUES = 7;

/**
 * Where the entry list's elements start and how many there are, when `bytes` begins with the record head this build
 * writes (a 4-entry map: `format`, `version`, `root` of this format and version, then `entries` with an `array 32`
 * header); `undefined` for any other layout.
 */
function readRecordHead(bytes: Uint8Array): { root: string; count: number; start: number } | undefined {
  if (bytes[0] !== 0x84) return undefined;
  const head: unknown[] = [];
  let headEnd = 0;
  packr.unpackMultiple(bytes.subarray(1), (value: unknown, _start?: number, end = 0) => {
    head.push(value);
    headEnd = 1 + end;
    return head.length < HEAD_VALUES;
  });
  const [formatKey, format, versionKey, version, rootKey, root, entriesKey] = head;
  if (
    formatKey !== 'format' ||
    format !== TITLE_INDEX_FORMAT ||
    versionKey !== 'version' ||
    version !== TITLE_INDEX_VERSION ||
    rootKey !== 'root' ||
    typeof root !== 'string' ||
    root === '' ||
    entriesKey !== 'entries' ||
    bytes[headEnd] !== 0xdd ||
    headEnd + 5 > bytes.length
  )
    return undefined;
  const count = new DataView(bytes.buffer, bytes.byteOffset + headEnd + 1, 4).getUint32(0);
  return { root, count, start: headEnd + 5 };
}

/**
 * {@link decodeTitleIndex} for a host's thread (issue 27 item 6): the same content, read a slice of
 * {@link TITLE_INDEX_DECODE_SLICE_ENTRIES} entries at a time with a hop between slices, then unsealed in time slices. Only the layout this build
 * writes is read in slices; any other bytes (another layout, damaged framing, a count that does not match, trailing
 * bytes) go to the one-stretch decoding, so every file gets exactly the answer {@link decodeTitleIndex} gives.
 * @param pause - the hop (default one macrotask; tests count them).
 */
export async function decodeTitleIndexInSlices(
  bytes: Uint8Array,
  pause: () => Promise<void> = yieldToEventLoop,
): Promise<TitleIndexFileContent | undefined> {
  const sealed: unknown[] = [];
  let root: string;
  try {
    const head = readRecordHead(bytes);
    if (head === undefined) return decodeTitleIndex(bytes);
    root = head.root;
    let position = head.start;
    while (sealed.length < head.count) {
      if (position >= bytes.length) return decodeTitleIndex(bytes);
      const from = position;
      let inSlice = 0;
      packr.unpackMultiple(bytes.subarray(from), (value: unknown, _start?: number, end = 0) => {
        sealed.push(value);
        position = from + end;
        inSlice += 1;
        return inSlice < TITLE_INDEX_DECODE_SLICE_ENTRIES && sealed.length < head.count;
      });
      await pause();
    }
    if (position !== bytes.length) return decodeTitleIndex(bytes);
  } catch {
    // Damaged framing somewhere: the one-stretch decoding says what such a file is (usually: discarded).
    return decodeTitleIndex(bytes);
  }
  const out = new Map<string, HeldTitleIndexEntry>();
  let discarded = 0;
  const slice = new TimeSlice({ pause });
  for (let index = 0; index < sealed.length; index += 1) {
    if (slice.due()) await slice.hop();
    const entry = unsealEntry(sealed[index]);
    if (entry === undefined) discarded += 1;
    else out.set(entry[0], entry[1]);
  }
  return { root, entries: out, discarded };
}
