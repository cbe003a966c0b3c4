/**
 * The byte format of the title index file (SESSION-LOG.md §10.7): one msgpackr-encoded record
 * `{format, version, root, entries}`: `root` the real path of the session root the index describes, `entries`
 * a list of sealed entries `[answer, answerSum, checkpoint, checkpointSum]`. `answer` is the msgpack encoding of
 * `[key, {dev, ino, size, mtimeNs, ctimeNs, outcome}]` (`key` the artifact path relative to the root, so a root
 * reached through a symlink shares the entries of the root itself), `checkpoint` the msgpack encoding of
 * `{headerDigest, resumeOffset, guard, state}`, and each `…Sum` the XXH64 (seed 0) of exactly those bytes as 16
 * lower-case hex digits.
 *
 * Integrity: a file that does not decode (a truncation, damaged framing), names another format or version, has
 * no root, or holds no entry list is discarded as a whole. An entry whose answer checksum fails, or whose answer
 * does not decode to a well-formed key and answer, is discarded alone (counted in `discarded`). The checkpoint
 * part stays sealed until a continued scan needs it ({@link openCheckpoint}): its checksum is verified then, so a
 * stat-only answer pays for hashing the small answer part only, and a damaged checkpoint only costs a full scan.
 * A bit flip anywhere thus either discards what it touched or leaves the decoded values unchanged.
 */
import { posix, win32 } from 'node:path';
// The plain-JavaScript entry: see protocol/wire/log-entry-codec.ts.
import { Packr } from 'msgpackr/pack';
import { xxh64 } from '../../../../workers/decode/xxh64.js';
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
 * The version this build reads and writes; any other version is discarded and rebuilt. Version 2 seals every
 * entry with checksums (version 1 had none, so its files are discarded).
 */
export const TITLE_INDEX_VERSION = 2;

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

/** A checkpoint part as the file stores it: its msgpack bytes and their XXH64, verified on first use. */
export interface SealedCheckpoint {
  readonly kind: 'sealed';
  readonly bytes: Uint8Array;
  /** XXH64 (seed 0) of {@link bytes} as the file stored it: 16 lower-case hex digits, unverified until opened. */
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

/** XXH64 (seed 0) of `bytes` as 16 lower-case hex digits: the checksum rule of every sealed part. */
export function checksumOf(bytes: Uint8Array): string {
  return xxh64(bytes).toString(16).padStart(16, '0');
}

/** A held entry from a fully decoded one (a fresh scan result). */
export function holdEntry(entry: TitleIndexEntry): HeldTitleIndexEntry {
  const { dev, ino, size, mtimeNs, ctimeNs, outcome, headerDigest, resumeOffset, guard, state } = entry;
  return { dev, ino, size, mtimeNs, ctimeNs, outcome, checkpoint: { kind: 'open', value: { headerDigest, resumeOffset, guard, state } } };
}

/** A sealed entry as written: `[answer, answerSum, checkpoint, checkpointSum]`. */
type SealedEntry = [Uint8Array, string, Uint8Array, string];

/**
 * The sealed form of each entry object, with the key it was sealed under: an entry read from the file is written
 * back with the bytes it was read with, and a fresh one is encoded and hashed once, not on every write (a long-lived
 * process rewrites the file after each burst). Entries are immutable, so the object identifies its bytes.
 */
const sealedForms = new WeakMap<HeldTitleIndexEntry, { readonly key: string; readonly sealed: SealedEntry }>();

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

function sealEntry(key: string, entry: HeldTitleIndexEntry): SealedEntry {
  const known = sealedForms.get(entry);
  if (known !== undefined && known.key === key) return known.sealed;
  const { dev, ino, size, mtimeNs, ctimeNs, outcome } = entry;
  const answer = packr.pack([key, { dev, ino, size, mtimeNs, ctimeNs, outcome }]);
  const part = entry.checkpoint;
  let sealed: SealedEntry;
  // A still-sealed checkpoint is written back as read, checksum included: damage stays detectable, never laundered.
  if (part.kind === 'sealed') {
    sealed = [answer, checksumOf(answer), part.bytes, part.checksum];
  } else {
    const checkpoint = packr.pack(part.value);
    sealed = [answer, checksumOf(answer), checkpoint, checksumOf(checkpoint)];
  }
  sealedForms.set(entry, { key, sealed });
  return sealed;
}

/** Encodes an index file for the root at `root` (its real path); entry keys are paths relative to it. */
export function encodeTitleIndex(root: string, entries: ReadonlyMap<string, HeldTitleIndexEntry | TitleIndexEntry>): Uint8Array {
  const sealed = [...entries].map(([key, entry]) => sealEntry(key, 'checkpoint' in entry ? entry : holdEntry(entry)));
  return packr.pack({ format: TITLE_INDEX_FORMAT, version: TITLE_INDEX_VERSION, root, entries: sealed });
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
