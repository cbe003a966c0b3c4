/**
 * Reads only the header of an artifact, for listing (SESSION-LOG.md §9.13 step 4–5): 8 KiB at a
 * time until the first line (raw) or the first complete frame (zstd) is available. The artifact is opened
 * without blocking and only when it is a regular file (see `regular-file.ts`).
 */
import { isHeaderLine, headerRecordFromLine } from '../../../protocol/header-line.js';
import type { Compression } from '../../../protocol/storage-paths.js';
import { readHeaderFromPrefix } from '../../../workers/decode/decode-artifact.js';
import { codecReadyFor } from '../../../workers/decode/zstd-codec.js';
import { readDescriptor } from '../../../io/callback-fs.js';
import { closeDescriptorQuietly, isMissingFile, openRegularDescriptor, storeIoError } from '../../../io/regular-file.js';
import { concatBytes } from '../../../protocol/concat-bytes.js';

/** Bytes read per step while looking for the header. */
export const HEADER_READ_CHUNK = 8 * 1024;

/** A header found by the listing path: the converted header record. */
export interface ListedHeader {
  readonly record: Record<string, unknown>;
}

/**
 * What the header read of one artifact found. Every kind but `header` is skipped by dsh's listing; a tolerant
 * listing reports all of them except `missing`.
 */
export type ListedHeaderOutcome =
  | { readonly kind: 'header'; readonly header: ListedHeader }
  /** No file at the path (or a dangling link). */
  | { readonly kind: 'missing' }
  /** EOF before a complete header line (raw) or frame (zstd): empty or torn. */
  | { readonly kind: 'incomplete' }
  /** The first line is not JSON, or not a header line; `message` is the inspection's text for it. */
  | { readonly kind: 'not-a-header'; readonly message: string };

/**
 * The header of an artifact as the listing sees it (§9.13 steps 4–5). Corrupt header frames and retired header
 * fields throw (dsh fails the whole listing on them), as do a non-regular file (`SESSION_STORE_NOT_A_FILE`) and
 * every other file-system failure (typed, see `storeIoError`).
 */
export async function readListedHeader(path: string, compression: Compression, signal?: AbortSignal): Promise<ListedHeaderOutcome> {
  await codecReadyFor(compression);
  signal?.throwIfAborted();
  let fd: number;
  try {
    fd = await openRegularDescriptor(path);
  } catch (error) {
    if (isMissingFile(error)) return MISSING;
    throw error;
  }
  try {
    let prefix: Uint8Array = new Uint8Array(0);
    for (;;) {
      signal?.throwIfAborted();
      const chunk = Buffer.allocUnsafe(HEADER_READ_CHUNK);
      let bytesRead: number;
      try {
        bytesRead = await readDescriptor(fd, chunk, 0, HEADER_READ_CHUNK, prefix.byteLength);
      } catch (error) {
        throw storeIoError('read', path, error);
      }
      if (bytesRead === 0) return INCOMPLETE;
      prefix = concatBytes(prefix, chunk.subarray(0, bytesRead));
      const found = readHeaderFromPrefix(prefix, compression);
      if (found.status === 'incomplete') continue;
      return listedHeaderOfLine(found.line);
    }
  } finally {
    // A failed close of a read-only descriptor loses nothing; the header (or the read's own error) is the answer.
    await closeDescriptorQuietly(fd);
  }
}

const MISSING: ListedHeaderOutcome = Object.freeze({ kind: 'missing' });
const INCOMPLETE: ListedHeaderOutcome = Object.freeze({ kind: 'incomplete' });

/**
 * What the listing makes of a header line (without its LF): a header, or why the artifact is skipped. The one
 * judgement of a first line, whether it was read from the file or recalled from the title index.
 */
export function listedHeaderOfLine(line: string): ListedHeaderOutcome {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    // A first line that is not JSON makes the listing skip the artifact (§9.13 step 5); the texts are the
    // inspection's (§9.6).
    return { kind: 'not-a-header', message: 'corrupt session log: header line is not valid JSON' };
  }
  if (!isHeaderLine(value)) return { kind: 'not-a-header', message: 'corrupt session log: first line is not a session header' };
  return { kind: 'header', header: { record: headerRecordFromLine(value as Record<string, unknown>) } };
}
