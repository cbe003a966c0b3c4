/**
 * The file-system operations the title index performs (SESSION-LOG.md §10.7), behind one small interface so
 * that tests can count and fail them: `stat` of artifacts, ranged and whole reads of artifacts, reading the
 * index file, creating its cache directory and replacing it atomically.
 */
import { mkdir, stat } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { revisionOf, type FileRevision } from '../../../../io/file-revision.js';
import { isMissingFile, openRegularFile, readRegularFile } from '../../../../io/regular-file.js';
import { replaceFileAtomically } from '../../../../io/atomic-file.js';

/** One byte range to read. */
export interface ByteRange {
  readonly position: number;
  readonly length: number;
}

/** What the title index needs from the file system. */
export interface TitleIndexFs {
  /** `stat(path, {bigint: true})` as a revision. */
  statRevision(path: string): Promise<FileRevision>;
  /** Reads each range through one open handle; a range cut short by EOF comes back shorter. */
  readRanges(path: string, ranges: readonly ByteRange[]): Promise<Uint8Array[]>;
  /** Reads a whole file. */
  readFile(path: string, signal?: AbortSignal): Promise<Uint8Array>;
  /**
   * Replaces `path` atomically and durably with `content` (one buffer or blocks written in order; `io/atomic-file.ts`).
   * Refuses (rejects) when the directory is marked read-only.
   */
  replaceFile(path: string, content: Uint8Array | readonly Uint8Array[]): Promise<void>;
  /**
   * Creates directory `path` and its missing parents (mode `0700`: a cache of other people's conversation
   * titles is private). Refuses (rejects) when the deepest existing ancestor is marked read-only or is not a
   * directory.
   */
  ensureDirectory(path: string): Promise<void>;
}

/** Rejects like `EACCES` when `directory`'s mode has no write bit (checked even for a process running as root). */
async function assertNotReadOnly(directory: string): Promise<void> {
  // Mode bits, not access(): a process running as root may write anywhere, but a directory marked read-only (a
  // shared fixture, a mounted archive, a locked-down home) must stay untouched.
  if (((await stat(directory)).mode & 0o222) === 0) {
    throw Object.assign(new Error(`title index: directory "${directory}" is read-only`), { code: 'EACCES' });
  }
}

async function readFully(handle: FileHandle, range: ByteRange): Promise<Uint8Array> {
  const buffer = Buffer.allocUnsafe(range.length);
  let filled = 0;
  while (filled < range.length) {
    const { bytesRead } = await handle.read(buffer, filled, range.length - filled, range.position + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return buffer.subarray(0, filled);
}

/** The title index's operations on the real file system (`node:fs/promises`). */
export const nodeTitleIndexFs: TitleIndexFs = {
  async statRevision(path) {
    // Asynchronous on purpose: the main thread of a host must never block on the file system.
    return revisionOf(await stat(path, { bigint: true }));
  },

  async readRanges(path, ranges) {
    const handle = await openRegularFile(path);
    try {
      const out: Uint8Array[] = [];
      for (const range of ranges) out.push(await readFully(handle, range));
      return out;
    } finally {
      await handle.close();
    }
  },

  async readFile(path, signal) {
    return readRegularFile(path, signal);
  },

  async replaceFile(path, content) {
    await assertNotReadOnly(dirname(path));
    await replaceFileAtomically(path, content);
  },

  async ensureDirectory(path) {
    let existing = path;
    for (;;) {
      const stats = await stat(existing).catch((error: unknown) => {
        if (isMissingFile(error)) return undefined;
        throw error;
      });
      if (stats !== undefined) {
        if (!stats.isDirectory()) throw Object.assign(new Error(`title index: "${existing}" is not a directory`), { code: 'ENOTDIR' });
        break;
      }
      const parent = dirname(existing);
      // Unreachable on a real file system (the file-system root exists); stop rather than loop.
      if (parent === existing) break;
      existing = parent;
    }
    if (existing === path) return;
    await assertNotReadOnly(existing);
    await mkdir(path, { recursive: true, mode: 0o700 });
  },
};
