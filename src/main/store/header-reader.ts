/**
 * Reads only the header of an artifact, for listing (SESSION-LOG.md §9.13 step 4–5): 8 KiB at a
 * time until the first line (raw) or the first complete frame (zstd) is available.
 */
import { open } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { isHeaderLine, headerRecordFromLine } from '../../protocol/header-line.js';
import type { Compression } from '../../protocol/storage-paths.js';
import { readHeaderFromPrefix } from '../../workers/decode/decode-artifact.js';
import { initZstd } from '../../workers/decode/zstd-codec.js';

/** Bytes read per step while looking for the header. */
export const HEADER_READ_CHUNK = 8 * 1024;

/** A header found by the listing path: the converted header record and its byte length on disk. */
export interface ListedHeader {
  readonly record: Record<string, unknown>;
  readonly headerBytes: number;
}

/**
 * The header record of an artifact, or `undefined` when the listing skips it (missing file, EOF
 * before a complete header, a first line that is not JSON or not a header). Corrupt header frames
 * and retired header fields throw, failing the whole listing as dsh does.
 */
export async function readListedHeader(path: string, compression: Compression, signal?: AbortSignal): Promise<ListedHeader | undefined> {
  if (compression === 'zstd') await initZstd();
  signal?.throwIfAborted();
  let handle: FileHandle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    if (isMissingFile(error)) return undefined;
    throw error;
  }
  try {
    let prefix: Uint8Array = new Uint8Array(0);
    for (;;) {
      signal?.throwIfAborted();
      const chunk = Buffer.allocUnsafe(HEADER_READ_CHUNK);
      const { bytesRead } = await handle.read(chunk, 0, HEADER_READ_CHUNK, prefix.byteLength);
      if (bytesRead === 0) return undefined;
      prefix = concatBytes(prefix, chunk.subarray(0, bytesRead));
      const found = readHeaderFromPrefix(prefix, compression);
      if (found.status === 'incomplete') continue;
      return parseListedLine(found.line, found.headerBytes);
    }
  } finally {
    await handle.close();
  }
}

function parseListedLine(line: string, headerBytes: number): ListedHeader | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    // A first line that is not JSON makes the listing skip the artifact (§9.13 step 5).
    return undefined;
  }
  if (!isHeaderLine(value)) return undefined;
  return { record: headerRecordFromLine(value as Record<string, unknown>), headerBytes };
}

function concatBytes(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.byteLength + b.byteLength);
  out.set(a, 0);
  out.set(b, a.byteLength);
  return out;
}

/** True for the `ENOENT`/`ENOTDIR` errors that mean "no such file". */
export function isMissingFile(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}
