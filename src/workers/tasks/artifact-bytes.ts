/**
 * Stage R2 of an inspection run inside a worker (SESSION-LOG.md §9.10, §10.6 rule 2): the task reads
 * the artifact itself, whole, between two equal `stat`s, then cuts it to the captured prefix. The artifact is
 * opened without blocking and read only when it is a regular file (`regular-file.ts`).
 */
import type { BigIntStats } from 'node:fs';
import { stat } from 'node:fs/promises';
import { SessionLogError } from '../../protocol/errors.js';
import type { ArtifactRef } from '../../protocol/wire/task-shapes.js';
import { openRegularFile, storeIoError, withStoreIo } from './regular-file.js';

/** How many unequal attempts a stable read makes before giving up (the main-thread store uses the same bound). */
const STABLE_READ_ATTEMPTS = 64;

interface Revision {
  readonly dev: bigint;
  readonly ino: bigint;
  readonly size: bigint;
  readonly mtimeNs: bigint;
  readonly ctimeNs: bigint;
}

function revisionFrom(stats: BigIntStats): Revision {
  return { dev: stats.dev, ino: stats.ino, size: stats.size, mtimeNs: stats.mtimeNs, ctimeNs: stats.ctimeNs };
}

function sameRevision(a: Revision, b: Revision): boolean {
  return a.dev === b.dev && a.ino === b.ino && a.size === b.size && a.mtimeNs === b.mtimeNs && a.ctimeNs === b.ctimeNs;
}

/**
 * Reads a whole file between two equal revisions (§9.10), with the texts, bound and file checks of the
 * store's stable read (src/main/store/file-revision.ts): the "before" revision from the opened handle (a FIFO,
 * socket, device or directory is refused with `SESSION_STORE_NOT_A_FILE` before anything is read), the
 * "after" revision from the path. `signal` reaches every step, the read included. File-system failures are
 * typed store I/O errors.
 */
export async function stableReadBytes(path: string, signal: AbortSignal): Promise<{ bytes: Uint8Array; revision: Revision }> {
  for (let attempt = 0; attempt < STABLE_READ_ATTEMPTS; attempt += 1) {
    signal.throwIfAborted();
    const handle = await openRegularFile(path);
    let before: Revision;
    let bytes: Buffer;
    try {
      before = revisionFrom(await withStoreIo('stat', path, () => handle.stat({ bigint: true })));
      signal.throwIfAborted();
      bytes = await handle.readFile({ signal }).catch((error: unknown) => {
        throw storeIoError('read', path, error);
      });
    } finally {
      await handle.close().catch(() => {
        // A failed close of a read-only handle loses nothing: the bytes (or the read's own error) are the answer.
      });
    }
    signal.throwIfAborted();
    const after = revisionFrom(await withStoreIo('stat', path, () => stat(path, { bigint: true })));
    if (sameRevision(before, after) && BigInt(bytes.byteLength) === after.size) return { bytes, revision: after };
    // The file changed while it was read: yield once so the writer can finish its batch.
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new SessionLogError('SESSION_STORE_UNSTABLE_READ', `session log "${path}" kept changing while it was read`);
}

/**
 * The bytes of an artifact as of its capture. Logs are append-only, so while the file is still the
 * captured one (same device and inode) and at least as long, its first `capture.size` bytes are exactly
 * what the file held at capture time. A replaced or shortened file (a durable repair truncates) no longer
 * holds that state; then the whole current file is the observation, as an uncaptured read would see it.
 */
export async function readCapturedArtifact(artifact: ArtifactRef, signal: AbortSignal): Promise<Uint8Array> {
  const { bytes, revision } = await stableReadBytes(artifact.path, signal);
  const capture = artifact.capture;
  if (capture === undefined) return bytes;
  const capturedSize = BigInt(capture.size);
  const sameFile = revision.dev.toString() === capture.dev && revision.ino.toString() === capture.ino;
  return sameFile && revision.size >= capturedSize ? bytes.subarray(0, Number(capturedSize)) : bytes;
}
