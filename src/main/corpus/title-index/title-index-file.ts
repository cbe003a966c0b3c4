/**
 * The byte format of the title index file (SESSION-LOG.md §10.7): one msgpackr-encoded record
 * `{format, version, entries}` with `entries` a list of `[artifactPath, entry]` pairs. A file that does not
 * decode, names another format or version, or holds a malformed entry list is discarded as a whole; single
 * malformed entries are dropped.
 */
import { Packr } from 'msgpackr';
import { isTitleIndexEntry, type TitleIndexEntry } from './title-index-entry.js';

/** The `format` tag of an index file. */
export const TITLE_INDEX_FORMAT = 'sessionctx-title-index';

/** The version this build reads and writes; any other version is discarded and rebuilt. */
export const TITLE_INDEX_VERSION = 1;

/** The default file name of the index, directly under the session root (SESSION-LOG.md §9.1). */
export const TITLE_INDEX_FILE_NAME = '.sessionctx-title-index.v1';

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

/** Encodes the entries as an index file. */
export function encodeTitleIndex(entries: ReadonlyMap<string, TitleIndexEntry>): Uint8Array {
  return packr.pack({ format: TITLE_INDEX_FORMAT, version: TITLE_INDEX_VERSION, entries: [...entries] });
}

/**
 * The entries of an index file, or `undefined` when the file must be discarded (not msgpack, another format
 * or version, or no entry list).
 */
export function decodeTitleIndex(bytes: Uint8Array): Map<string, TitleIndexEntry> | undefined {
  let content: unknown;
  try {
    content = packr.unpack(bytes);
  } catch {
    // Undecodable bytes are a corrupt index: the caller discards it and rebuilds.
    return undefined;
  }
  if (typeof content !== 'object' || content === null) return undefined;
  const { format, version, entries } = content as Record<string, unknown>;
  if (format !== TITLE_INDEX_FORMAT || version !== TITLE_INDEX_VERSION || !Array.isArray(entries)) return undefined;
  const out = new Map<string, TitleIndexEntry>();
  for (const pair of entries as unknown[]) {
    if (!Array.isArray(pair) || pair.length !== 2) continue;
    const [path, entry] = pair as [unknown, unknown];
    if (typeof path === 'string' && isTitleIndexEntry(entry)) out.set(path, entry);
  }
  return out;
}
