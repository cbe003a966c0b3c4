/**
 * Append-only writing in dsh's on-disk format (SESSION-LOG.md §9.16): materialise with a temp
 * file published by `link`, then one durable batch per append (raw lines, or one zstd frame).
 */
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { link, mkdir, open, unlink } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { SessionEvent, SessionHeader } from '../../../protocol/events.js';
import { SessionLogError } from '../../../protocol/errors.js';
import { serializeHeaderLine } from '../../../protocol/header-line.js';
import { assertEventDepth } from '../../../protocol/json-depth.js';
import { encodeStorageBatch } from '../../../protocol/storage-rows.js';
import type { Compression } from '../../../protocol/storage-paths.js';
import { compressFrame, initZstd } from '../../../workers/decode/zstd-codec.js';
import { kindOf, notAFileError, systemErrorCode } from '../../../io/regular-file.js';
import { alreadyMaterializedError, encodingMismatchError } from '../../../protocol/layout-errors.js';
import { pathExists, oppositeArtifactName } from './store-layout.js';
import { isMissingFile } from '../../../io/regular-file.js';

const encoder = new TextEncoder();

/**
 * The bytes of one durable batch: raw text, or one checksummed zstd frame.
 *
 * @throws SessionLogError `SESSION_LOG_TOO_DEEP` before anything is serialised when an event nests deeper than
 *   SESSION-LOG.md §9.15a allows (no reader could hand it on without a `RangeError`).
 */
export async function batchBytes(events: readonly SessionEvent[], compression: Compression, packChunks: boolean): Promise<Uint8Array> {
  for (const event of events) assertEventDepth(event);
  const text = encoder.encode(encodeStorageBatch(events, packChunks));
  if (compression === 'none') return text;
  await initZstd();
  return compressFrame(text);
}

/** The bytes of the header record: the header line plus LF, framed alone in zstd mode. */
export async function headerBytes(header: SessionHeader, compression: Compression): Promise<Uint8Array> {
  assertEventDepth(header, { subject: 'session header' });
  const text = encoder.encode(`${serializeHeaderLine(header)}\n`);
  if (compression === 'none') return text;
  await initZstd();
  return compressFrame(text);
}

/**
 * Writes all of `bytes`. One `write` may be short without failing (at the file-size limit the kernel takes
 * what fits), so it loops; the next call then reports the error (EFBIG) instead of leaving half a batch
 * behind a successful return. Like Node's own `writeFile` loop, it relies on a regular file never
 * accepting 0 bytes of a non-empty write without an error.
 */
async function writeFully(handle: FileHandle, bytes: Uint8Array): Promise<void> {
  let offset = 0;
  while (offset < bytes.length) {
    const { bytesWritten } = await handle.write(bytes, offset, bytes.length - offset);
    offset += bytesWritten;
  }
}

/** Never waits for a writer: the path is a directory or an artifact, and a FIFO swapped in must not hang us. */
const NONBLOCK = constants.O_NONBLOCK ?? 0;

async function fsyncPath(path: string): Promise<void> {
  const handle = await open(path, constants.O_RDONLY | NONBLOCK);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Creates `dir` and its missing parents with mode 0700, fsyncing each parent that gained an entry. */
export async function makeDirectoryDurable(dir: string): Promise<void> {
  const missing: string[] = [];
  for (let current = dir; !(await pathExists(current)); current = dirname(current)) {
    missing.unshift(current);
    if (dirname(current) === current) break;
  }
  await mkdir(dir, { recursive: true, mode: 0o700 });
  for (const created of missing) await fsyncPath(dirname(created));
}

/**
 * Writes a new artifact: header and first batch to a temp file, fsync, publish with `link`
 * (never `rename`, so an existing log is never replaced), fsync the directory, remove the temp.
 * Returns the published file's identity and size (the writer's first committed state).
 */
export async function materializeArtifact(
  path: string,
  header: SessionHeader,
  firstBatch: readonly SessionEvent[],
  compression: Compression,
  packChunks: boolean,
): Promise<CommittedFile> {
  const dir = dirname(path);
  await makeDirectoryDurable(dir);
  if (await pathExists(path)) throw alreadyMaterializedError(header.id);
  const opposite = join(dir, oppositeArtifactName(compression));
  if (await pathExists(opposite)) throw encodingMismatchError(opposite, compression);
  const parts = [await headerBytes(header, compression)];
  if (firstBatch.length > 0) parts.push(await batchBytes(firstBatch, compression, packChunks));
  const temp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  const handle = await open(temp, 'wx', 0o600);
  let committed: CommittedFile;
  try {
    for (const part of parts) await writeFully(handle, part);
    await handle.sync();
    const stats = await handle.stat({ bigint: true });
    committed = { dev: stats.dev, ino: stats.ino, size: Number(stats.size) };
  } catch (error) {
    await handle.close();
    await unlinkQuietly(temp);
    throw error;
  }
  await handle.close();
  try {
    await link(temp, path);
  } catch (error) {
    await unlink(temp);
    if ((error as { code?: unknown }).code === 'EEXIST') throw alreadyMaterializedError(header.id);
    throw error;
  }
  await fsyncPath(dir);
  await unlink(temp);
  return committed;
}

/** The identity and size of a log as a writer last committed or verified it (SESSION-LOG.md §9.16 rule 5). */
export interface CommittedFile {
  readonly dev: bigint;
  readonly ino: bigint;
  readonly size: number;
}

/** `SESSION_STORE_CONFLICT`: the file is not the one, or not the size, this writer committed or verified. */
export function fileConflictError(
  path: string,
  expected: CommittedFile,
  actual: { dev: bigint; ino: bigint; size: bigint },
): SessionLogError {
  const what =
    actual.dev !== expected.dev || actual.ino !== expected.ino ? 'was replaced' : `is ${actual.size} bytes, not ${expected.size}`;
  return new SessionLogError(
    'SESSION_STORE_CONFLICT',
    `session log ${JSON.stringify(path)} changed under this writer (the file ${what}); nothing was written`,
  );
}

/**
 * Appends one durable batch and fsyncs it, only when the opened file is `expected` (same dev, ino and size);
 * otherwise `SESSION_STORE_CONFLICT` and nothing is written. On a write or sync failure the same file descriptor is
 * truncated back to `expected.size` — only the bytes this call wrote — before the error is rethrown.
 *
 * @returns the file as committed after the batch.
 */
export async function appendCommitted(path: string, expected: CommittedFile, bytes: Uint8Array): Promise<CommittedFile> {
  const handle = await openForAppend(path);
  try {
    const stats = await handle.stat({ bigint: true });
    if (stats.dev !== expected.dev || stats.ino !== expected.ino || stats.size !== BigInt(expected.size)) {
      throw fileConflictError(path, expected, stats);
    }
    try {
      await writeFully(handle, bytes);
      await handle.sync();
    } catch (error) {
      await truncateHandleQuietly(handle, expected.size);
      throw error;
    }
    return { dev: expected.dev, ino: expected.ino, size: expected.size + bytes.length };
  } finally {
    await handle.close();
  }
}

/**
 * The durable repair of §9.12 rule 4 on the file `expected` (checked on the opened descriptor): truncate to
 * `truncateTo` (when given) and fsync, then write `bytes` there and fsync. On a write failure the descriptor is
 * truncated back to where the repair batch began.
 */
export async function repairCommitted(
  path: string,
  expected: CommittedFile,
  truncateTo: number | undefined,
  bytes: Uint8Array | undefined,
): Promise<CommittedFile> {
  let handle: FileHandle;
  try {
    handle = await open(path, constants.O_RDWR | NONBLOCK);
  } catch (error) {
    const code = systemErrorCode(error);
    if (code === 'ENXIO' || code === 'EISDIR') throw notAFileError(path, await kindOf(path), error);
    throw error;
  }
  try {
    const stats = await handle.stat({ bigint: true });
    if (!stats.isFile()) throw notAFileError(path, await kindOf(path));
    if (stats.dev !== expected.dev || stats.ino !== expected.ino || stats.size !== BigInt(expected.size)) {
      throw fileConflictError(path, expected, stats);
    }
    const base = truncateTo ?? expected.size;
    if (truncateTo !== undefined) {
      await handle.truncate(truncateTo);
      await handle.sync();
    }
    if (bytes !== undefined && bytes.length > 0) {
      try {
        let offset = 0;
        while (offset < bytes.length) {
          const { bytesWritten } = await handle.write(bytes, offset, bytes.length - offset, base + offset);
          offset += bytesWritten;
        }
        await handle.sync();
      } catch (error) {
        await truncateHandleQuietly(handle, base);
        throw error;
      }
    }
    return { dev: expected.dev, ino: expected.ino, size: base + (bytes?.length ?? 0) };
  } finally {
    await handle.close();
  }
}

async function truncateHandleQuietly(handle: FileHandle, size: number): Promise<void> {
  try {
    await handle.truncate(size);
  } catch {
    // The original write error is the one to report; the writer re-verifies the log before its next append.
  }
}

/**
 * Opens an existing artifact for appending without ever blocking (a FIFO without a reader would make a plain
 * open wait) and only when the opened handle is a regular file.
 *
 * @throws SessionLogError `SESSION_STORE_NOT_A_FILE` for a FIFO, socket, device or directory; the open's own
 *   system error otherwise (the store wraps it).
 */
async function openForAppend(path: string): Promise<FileHandle> {
  let handle: FileHandle;
  try {
    handle = await open(path, constants.O_WRONLY | constants.O_APPEND | NONBLOCK);
  } catch (error) {
    // ENXIO: a FIFO nobody reads, or a socket; EISDIR: a directory. Neither is a log to append to.
    const code = systemErrorCode(error);
    if (code === 'ENXIO' || code === 'EISDIR') throw notAFileError(path, await kindOf(path), error);
    throw error;
  }
  const stats = await handle.stat();
  if (!stats.isFile()) {
    await handle.close();
    throw notAFileError(path, await kindOf(path));
  }
  return handle;
}

async function unlinkQuietly(path: string): Promise<void> {
  try {
    await unlink(path);
  } catch (error) {
    // The write error is the one to report; a temp file that is already gone needs no cleanup.
    if (!isMissingFile(error)) throw error;
  }
}
