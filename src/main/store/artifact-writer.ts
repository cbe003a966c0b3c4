/**
 * Append-only writing in dsh's on-disk format (SESSION-LOG.md §9.16): materialise with a temp
 * file published by `link`, then one durable batch per append (raw lines, or one zstd frame).
 */
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { link, mkdir, open, stat, truncate, unlink } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { SessionEvent, SessionHeader } from '../../protocol/events.js';
import { serializeHeaderLine } from '../../protocol/header-line.js';
import { assertEventDepth } from '../../protocol/json-depth.js';
import { encodeStorageBatch } from '../../protocol/storage-rows.js';
import type { Compression } from '../../protocol/storage-paths.js';
import { compressFrame, initZstd } from '../../workers/decode/zstd-codec.js';
import { kindOf, notAFileError, systemErrorCode } from '../../workers/tasks/regular-file.js';
import { alreadyMaterializedError, encodingMismatchError } from './layout-errors.js';
import { pathExists, oppositeArtifactName } from './store-layout.js';
import { isMissingFile } from './header-reader.js';

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
async function makeDirectoryDurable(dir: string): Promise<void> {
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
 */
export async function materializeArtifact(
  path: string,
  header: SessionHeader,
  firstBatch: readonly SessionEvent[],
  compression: Compression,
  packChunks: boolean,
): Promise<void> {
  const dir = dirname(path);
  await makeDirectoryDurable(dir);
  if (await pathExists(path)) throw alreadyMaterializedError(header.id);
  const opposite = join(dir, oppositeArtifactName(compression));
  if (await pathExists(opposite)) throw encodingMismatchError(opposite, compression);
  const parts = [await headerBytes(header, compression)];
  if (firstBatch.length > 0) parts.push(await batchBytes(firstBatch, compression, packChunks));
  const temp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  const handle = await open(temp, 'wx', 0o600);
  try {
    for (const part of parts) await writeFully(handle, part);
    await handle.sync();
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
}

/**
 * Appends one durable batch and fsyncs it. On a write or sync failure the file is truncated back
 * to its previous size before the error is rethrown, so no half batch stays on disk.
 */
export async function appendBatch(path: string, bytes: Uint8Array): Promise<void> {
  const previousSize = (await stat(path)).size;
  const handle = await openForAppend(path);
  try {
    await writeFully(handle, bytes);
    await handle.sync();
  } catch (error) {
    await truncateQuietly(path, previousSize);
    throw error;
  } finally {
    await handle.close();
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

async function truncateQuietly(path: string, size: number): Promise<void> {
  try {
    await truncate(path, size);
  } catch (error) {
    // The original write error is the one to report; a vanished file needs no rollback.
    if (!isMissingFile(error)) throw error;
  }
}

/** Truncates to `size` and fsyncs (first step of the durable repair of §9.12 rule 4). */
export async function truncateDurably(path: string, size: number): Promise<void> {
  await truncate(path, size);
  await fsyncPath(path);
}
