/**
 * Safe reads of session artifacts and typed file-system errors, shared by the main-thread store and the pool
 * tasks (both threads import this one module from `io/`).
 *
 * A session artifact must be a regular file. Opening a FIFO without a writer blocks until one appears, and a
 * device or socket is never a log, so every read opens with `O_RDONLY | O_NONBLOCK` (which returns at once for
 * a FIFO and is ignored for regular files) and checks the *opened handle* with `fstat` before reading: a
 * `stat` of the path followed by an `open` would let a FIFO be swapped in between the two.
 *
 * Every system error (`ENOENT` where a file was expected, `EACCES`, `EISDIR`, `EMFILE`, …) leaves the store as
 * a {@link SessionLogError} whose message names the operation and the path, with the system error as `cause`.
 */
import { closeSync, constants, fstatSync, openSync, readFileSync, statSync } from 'node:fs';
import type { Stats } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { SessionLogError } from '../protocol/errors.js';
import { closeDescriptor, openDescriptor, statDescriptor } from './callback-fs.js';

/**
 * Opening flags of every artifact read. `O_NONBLOCK` is absent on Windows, where opening a named pipe does not
 * wait for a writer in the first place.
 */
const READ_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

/** The system error codes meaning "the operation is not permitted on this path". */
const ACCESS_CODES: ReadonlySet<string> = new Set(['EACCES', 'EPERM', 'EROFS']);

/**
 * True when `error` is a Node system error (`code` such as `ENOENT`), or Node's refusal to read a file larger
 * than a buffer can hold (a real artifact can reach it; every other `ERR_*` code is a caller's bug).
 */
function isSystemError(error: unknown): error is Error & { code: string } {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && (/^E[A-Z0-9]+$/.test(code) || code === 'ERR_FS_FILE_TOO_LARGE');
}

/** The system error code of `error`, or of the system error a store I/O error wraps. */
export function systemErrorCode(error: unknown): string | undefined {
  if (isSystemError(error)) return error.code;
  if (error instanceof SessionLogError && isSystemError(error.cause)) return error.cause.code;
  return undefined;
}

/**
 * True for the `ENOENT`/`ENOTDIR` errors that mean "no such file", raw or wrapped by {@link storeIoError}
 * (callers that treat a missing file as absent recognise both).
 */
export function isMissingFile(error: unknown): boolean {
  const code = systemErrorCode(error);
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/**
 * The typed form of a file-system failure: `session store: cannot <operation> "<path>": <system message>`, code
 * `SESSION_STORE_ACCESS_DENIED` (EACCES, EPERM, EROFS), `SESSION_STORE_NOT_A_FILE` (EISDIR, ENXIO: a
 * directory, or a socket or device opened as a file) or `SESSION_STORE_IO_FAILED` (anything else), the system
 * error kept as `cause`. Any other value (a typed error, an abort reason) is returned unchanged.
 */
export function storeIoError(operation: string, path: string, error: unknown): unknown {
  if (!isSystemError(error)) return error;
  const message = `session store: cannot ${operation} ${JSON.stringify(path)}: ${error.message}`;
  if (ACCESS_CODES.has(error.code)) return new SessionLogError('SESSION_STORE_ACCESS_DENIED', message, { cause: error });
  if (error.code === 'EISDIR' || error.code === 'ENXIO') return new SessionLogError('SESSION_STORE_NOT_A_FILE', message, { cause: error });
  return new SessionLogError('SESSION_STORE_IO_FAILED', message, { cause: error });
}

/** Runs one file-system step and rethrows its failure as {@link storeIoError}. */
export async function withStoreIo<T>(operation: string, path: string, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    throw storeIoError(operation, path, error);
  }
}

/** What kind of non-regular entry `stats` describes, for the error text. */
function entryKind(stats: Stats): string {
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  return 'an entry of another kind';
}

/**
 * What a non-regular entry is, for the text of {@link notAFileError} ("a FIFO", "a socket", …), found by a `stat`
 * (which never blocks, whatever the entry); used after an open refused with ENXIO.
 */
export async function kindOf(path: string): Promise<string> {
  try {
    return entryKind(await stat(path));
  } catch {
    // Gone or unreachable since the open: the open's own answer (no device or address) is all there is.
    return 'a socket or a device without a driver';
  }
}

/** `session store: "<path>" is <kind>, not a regular file`, code `SESSION_STORE_NOT_A_FILE`. */
export function notAFileError(path: string, kind: string, cause?: unknown): SessionLogError {
  return new SessionLogError(
    'SESSION_STORE_NOT_A_FILE',
    `session store: ${JSON.stringify(path)} is ${kind}, not a regular file`,
    cause === undefined ? undefined : { cause },
  );
}

/**
 * Opens `path` for reading without ever blocking on it, and only when it is a regular file.
 *
 * @throws SessionLogError `SESSION_STORE_NOT_A_FILE` for a FIFO, socket, device or directory (nothing is read);
 *   otherwise {@link storeIoError} of the failed `open` or `fstat` (a missing file is recognised by
 *   {@link isMissingFile}).
 */
export function openRegularFile(path: string): Promise<FileHandle> {
  return openChecked(path, {
    open: () => open(path, READ_FLAGS),
    stat: (handle) => handle.stat(),
    close: closeQuietly,
  });
}

/**
 * {@link openRegularFile} as a bare descriptor, over the callback API (`callback-fs.ts`: the listing opens one log
 * per session, and a `FileHandle` per open doubled its cost): the same flags, check and errors. Close it with
 * {@link closeDescriptorQuietly}.
 *
 * @throws what {@link openRegularFile} throws.
 */
export function openRegularDescriptor(path: string): Promise<number> {
  return openChecked(path, {
    open: () => openDescriptor(path, READ_FLAGS),
    stat: statDescriptor,
    close: closeDescriptorQuietly,
  });
}

/** The open, the check of the opened entry and the close on refusal, over either file API. */
async function openChecked<T>(
  path: string,
  api: { open(): Promise<T>; stat(opened: T): Promise<Stats>; close(opened: T): Promise<void> },
): Promise<T> {
  let opened: T;
  try {
    opened = await api.open();
  } catch (error) {
    // Opening a socket fails with ENXIO ("no such device or address"): the entry exists but is no file.
    if (systemErrorCode(error) === 'ENXIO') throw notAFileError(path, await kindOf(path), error);
    throw storeIoError('open', path, error);
  }
  let stats: Stats;
  try {
    stats = await api.stat(opened);
  } catch (error) {
    await api.close(opened);
    throw storeIoError('stat', path, error);
  }
  if (!stats.isFile()) {
    await api.close(opened);
    throw notAFileError(path, entryKind(stats));
  }
  return opened;
}

/** {@link closeQuietly} of a descriptor. */
export async function closeDescriptorQuietly(fd: number): Promise<void> {
  try {
    await closeDescriptor(fd);
  } catch {
    // As closeQuietly: a read-only descriptor loses nothing by a failed close.
  }
}

/**
 * Closes a read-only handle, swallowing a failed close: the bytes read (or the error that made us close) are the
 * answer, and a failed close of a read-only handle loses nothing.
 */
export async function closeQuietly(handle: FileHandle): Promise<void> {
  try {
    await handle.close();
  } catch {
    // The bytes or the error already in hand are what to report; a read-only handle loses nothing by a failed close.
  }
}

/**
 * The rest of an opened file's content. The signal reaches the read.
 *
 * @throws {@link storeIoError} of the read, or the signal's reason.
 */
export async function readOpened(handle: FileHandle, path: string, signal?: AbortSignal): Promise<Buffer> {
  try {
    return await handle.readFile(signal === undefined ? {} : { signal });
  } catch (error) {
    throw storeIoError('read', path, error);
  }
}

/**
 * The whole content of a regular file, read through {@link openRegularFile}. The signal reaches the read.
 *
 * @throws what {@link openRegularFile} throws, {@link storeIoError} of the read, or the signal's reason.
 */
export async function readRegularFile(path: string, signal?: AbortSignal): Promise<Buffer> {
  const handle = await openRegularFile(path);
  try {
    return await readOpened(handle, path, signal);
  } finally {
    await closeQuietly(handle);
  }
}

/**
 * {@link kindOf} without awaiting (a thread of its own that reads synchronously: the search worker).
 */
function kindOfSync(path: string): string {
  try {
    return entryKind(statSync(path));
  } catch {
    // Gone or unreachable since the open: the open's own answer (no device or address) is all there is.
    return 'a socket or a device without a driver';
  }
}

/**
 * {@link openRegularFile} for a thread that reads synchronously (the search worker, whose every awaited `open`,
 * `fstat`, `read` and `close` went through libuv's shared pool and left the thread idle for most of an index
 * build): the same flags, the same check of the opened descriptor, the same errors. Returns the descriptor.
 *
 * @throws what {@link openRegularFile} throws.
 */
export function openRegularFileSync(path: string): number {
  let fd: number;
  try {
    fd = openSync(path, READ_FLAGS);
  } catch (error) {
    if (systemErrorCode(error) === 'ENXIO') throw notAFileError(path, kindOfSync(path), error);
    throw storeIoError('open', path, error);
  }
  let stats: Stats;
  try {
    stats = fstatSync(fd);
  } catch (error) {
    closeQuietlySync(fd);
    throw storeIoError('stat', path, error);
  }
  if (!stats.isFile()) {
    closeQuietlySync(fd);
    throw notAFileError(path, entryKind(stats));
  }
  return fd;
}

/** {@link closeQuietly} of a descriptor from {@link openRegularFileSync}. */
export function closeQuietlySync(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // The bytes or the error already in hand are what to report; a read-only descriptor loses nothing by a failed close.
  }
}

/**
 * {@link readOpened} of a descriptor from {@link openRegularFileSync}: the rest of the file's content.
 * @throws {@link storeIoError} of the read.
 */
export function readOpenedSync(fd: number, path: string): Buffer {
  try {
    return readFileSync(fd);
  } catch (error) {
    throw storeIoError('read', path, error);
  }
}
