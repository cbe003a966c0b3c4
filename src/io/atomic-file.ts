/**
 * The one way sessionctx replaces a file it owns (a cache entry, the title or search index, plugin storage): a
 * temporary file beside the target (created exclusively, mode `0600` unless told otherwise), written in full,
 * fsynced, closed, renamed over the target, then the directory fsynced. The durability rule is the same for every
 * writer: a crash at any point leaves the old content or the new one, never a torn file, and once the promise
 * resolves the new content survives a power cut (the rename itself is on disk, not only the bytes). A failure removes
 * the temporary file and rejects with the first error.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { open, rename, unlink } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';

/** How {@link replaceFileAtomically} creates the new file. */
export interface AtomicReplaceOptions {
  /** The new file's permission bits; default `0o600` (what sessionctx writes is people's conversations). */
  readonly mode?: number;
}

/** Writes all of `bytes` through `handle` (a short write continues where it stopped). */
async function writeFully(handle: FileHandle, bytes: Uint8Array): Promise<void> {
  let offset = 0;
  while (offset < bytes.length) {
    const { bytesWritten } = await handle.write(bytes, offset, bytes.length - offset);
    offset += bytesWritten;
  }
}

/** fsyncs directory `directory`, so a rename into it is durable; a platform that cannot open a directory skips it. */
async function syncDirectory(directory: string): Promise<void> {
  let handle: FileHandle;
  try {
    handle = await open(directory, 'r');
  } catch {
    return;
  }
  try {
    await handle.sync();
  } catch {
    // Some file systems refuse fsync on a directory (EINVAL); the rename happened, which is what callers rely on.
  } finally {
    await handle.close();
  }
}

/**
 * Replaces `path` with `content` atomically and durably (see the file comment). The directory must exist.
 * @param path - the file to replace (created when missing)
 * @param content - the new content (a string is written as UTF-8; a list of blocks is written one after another, so
 *   a large file need not be gathered into one buffer on the caller's thread)
 */
export async function replaceFileAtomically(
  path: string,
  content: Uint8Array | string | readonly Uint8Array[],
  options: AtomicReplaceOptions = {},
): Promise<void> {
  const blocks = typeof content === 'string' ? [Buffer.from(content, 'utf8')] : content instanceof Uint8Array ? [content] : content;
  const temp = temporaryBeside(path);
  const handle = await open(temp, 'wx', options.mode ?? 0o600);
  try {
    try {
      for (const block of blocks) await writeFully(handle, block);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
  } catch (error) {
    // Nobody will ever read the temporary file: remove it (if that fails too, it is only clutter) and report the cause.
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  await syncDirectory(dirname(path));
}

/** The temporary file beside `path` a replace writes first: unique to this process and call. */
function temporaryBeside(path: string): string {
  return `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
}

/** {@link syncDirectory} for a caller that cannot wait. */
function syncDirectorySync(directory: string): void {
  let fd: number;
  try {
    fd = openSync(directory, 'r');
  } catch {
    return;
  }
  try {
    fsyncSync(fd);
  } catch {
    // As in syncDirectory: a file system may refuse fsync on a directory.
  } finally {
    closeSync(fd);
  }
}

/**
 * {@link replaceFileAtomically} for a caller that must finish before it returns (a database's close in a worker):
 * the same steps and the same durability rule, synchronously.
 * @param path - the file to replace (created when missing)
 * @param content - the new content (a string is written as UTF-8)
 */
export function replaceFileAtomicallySync(path: string, content: Uint8Array | string, options: AtomicReplaceOptions = {}): void {
  const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
  const temp = temporaryBeside(path);
  const fd = openSync(temp, 'wx', options.mode ?? 0o600);
  try {
    try {
      let offset = 0;
      while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
  } catch (error) {
    try {
      unlinkSync(temp);
    } catch {
      // Only clutter; the cause is reported.
    }
    throw error;
  }
  syncDirectorySync(dirname(path));
}
