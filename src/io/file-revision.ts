/**
 * File revisions and the stable read of SESSION-LOG.md §9.10: an artifact is read whole between two
 * equal `stat`s, so an append in progress is never observed half-applied. Artifacts are opened without
 * blocking and read only when the opened handle is a regular file (`regular-file.ts`).
 */
import { stat } from 'node:fs/promises';
import { fstatSync, statSync, type BigIntStats } from 'node:fs';
import { SessionLogError } from '../protocol/errors.js';
import {
  closeQuietly,
  closeQuietlySync,
  openRegularFile,
  openRegularFileSync,
  readOpened,
  readOpenedSync,
  storeIoError,
  withStoreIo,
} from './regular-file.js';
import { yieldToEventLoop } from './yield-to-event-loop.js';

/** The 5-tuple that identifies one state of a file (decimal strings, so it survives msgpack/JSON). */
export interface FileRevision {
  readonly dev: string;
  readonly ino: string;
  readonly size: string;
  readonly mtimeNs: string;
  readonly ctimeNs: string;
}

/** The text of the devices seen so far (a root is on one or a few): every revision of a device shares one string. */
const DEVICE_TEXTS = new Map<bigint, string>();
/** More devices than this are not remembered (a revision's text is then its own). */
const MAX_DEVICE_TEXTS = 64;

function devText(dev: bigint): string {
  const known = DEVICE_TEXTS.get(dev);
  if (known !== undefined) return known;
  const text = dev.toString();
  if (DEVICE_TEXTS.size < MAX_DEVICE_TEXTS) DEVICE_TEXTS.set(dev, text);
  return text;
}

/** The revision of a `stat({bigint: true})` result. */
export function revisionOf(stats: BigIntStats): FileRevision {
  return {
    dev: devText(stats.dev),
    ino: stats.ino.toString(),
    size: stats.size.toString(),
    mtimeNs: stats.mtimeNs.toString(),
    ctimeNs: stats.ctimeNs.toString(),
  };
}

/** True when two revisions name the same state of the same file. */
export function sameRevision(a: FileRevision, b: FileRevision): boolean {
  return a.dev === b.dev && a.ino === b.ino && a.size === b.size && a.mtimeNs === b.mtimeNs && a.ctimeNs === b.ctimeNs;
}

/** `stat` with nanosecond precision, as a revision; a failure is a typed store I/O error (`storeIoError`). */
export async function statRevision(path: string): Promise<FileRevision> {
  return revisionOf(await withStoreIo('stat', path, () => stat(path, { bigint: true })));
}

/** What a stable read returns: the bytes and the revision they belong to. */
export interface StableReadResult {
  readonly bytes: Buffer;
  readonly revision: FileRevision;
}

/**
 * How many times a stable read retries before giving up. A writer that appends faster than the
 * file can be read would otherwise keep the reader spinning forever.
 */
export const STABLE_READ_ATTEMPTS = 64;

/**
 * Reads a whole file between two equal revisions (SESSION-LOG.md §9.10). The signal reaches the
 * read itself; after {@link STABLE_READ_ATTEMPTS} unequal attempts it fails with
 * `SESSION_STORE_UNSTABLE_READ` rather than return bytes of no single revision.
 *
 * Each attempt opens the file (refusing a FIFO, socket, device or directory with `SESSION_STORE_NOT_A_FILE`
 * before reading anything), takes the "before" revision from the open handle, reads through it, and takes
 * the "after" revision from the path: a file replaced at the path during the read changes the inode, so the
 * bytes are only returned when they belong to what the path names now.
 *
 * @throws SessionLogError `SESSION_STORE_NOT_A_FILE`, `SESSION_STORE_UNSTABLE_READ`, or a typed I/O error
 *   (`SESSION_STORE_ACCESS_DENIED`, `SESSION_STORE_IO_FAILED`, the system error as `cause`); or the signal's reason.
 */
export async function stableRead(path: string, signal?: AbortSignal): Promise<StableReadResult> {
  for (let attempt = 0; attempt < STABLE_READ_ATTEMPTS; attempt += 1) {
    signal?.throwIfAborted();
    const handle = await openRegularFile(path);
    let before: FileRevision;
    let bytes: Buffer;
    try {
      before = revisionOf(await withStoreIo('stat', path, () => handle.stat({ bigint: true })));
      signal?.throwIfAborted();
      bytes = await readOpened(handle, path, signal);
    } finally {
      await closeQuietly(handle);
    }
    signal?.throwIfAborted();
    const after = await statRevision(path);
    if (sameRevision(before, after) && BigInt(bytes.byteLength) === BigInt(after.size)) {
      return { bytes, revision: after };
    }
    // The file changed while it was read: yield once so the writer can finish its batch.
    await yieldToEventLoop();
  }
  throw new SessionLogError('SESSION_STORE_UNSTABLE_READ', `session log "${path}" kept changing while it was read`);
}

/** `stat` of `step`'s result as a revision, its failure a typed store I/O error (the synchronous {@link statRevision}). */
function revisionSync(path: string, step: () => BigIntStats): FileRevision {
  try {
    return revisionOf(step());
  } catch (error) {
    throw storeIoError('stat', path, error);
  }
}

/**
 * {@link stableRead} for a thread that reads synchronously (the search worker): the same steps, checks, attempts
 * and errors. Between attempts it does not yield (there is nothing on its own thread to wait for; the writer is
 * another thread or process).
 *
 * @throws what {@link stableRead} throws, but never an abort (the caller polls between reads).
 */
export function stableReadSync(path: string): StableReadResult {
  for (let attempt = 0; attempt < STABLE_READ_ATTEMPTS; attempt += 1) {
    const fd = openRegularFileSync(path);
    let before: FileRevision;
    let bytes: Buffer;
    try {
      before = revisionSync(path, () => fstatSync(fd, { bigint: true }));
      bytes = readOpenedSync(fd, path);
    } finally {
      closeQuietlySync(fd);
    }
    const after = revisionSync(path, () => statSync(path, { bigint: true }));
    if (sameRevision(before, after) && BigInt(bytes.byteLength) === BigInt(after.size)) {
      return { bytes, revision: after };
    }
  }
  throw new SessionLogError('SESSION_STORE_UNSTABLE_READ', `session log "${path}" kept changing while it was read`);
}
