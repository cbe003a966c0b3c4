/**
 * The byte format of the title index file (SESSION-LOG.md §10.7): one msgpackr-encoded record
 * `{format, version, root, entries}`: `root` the real path of the session root the index describes, `entries`
 * a list of `[artifactPath, entry]` pairs with each path relative to that root (so a root reached through a
 * symlink shares the entries of the root itself). A file that does not decode, names another format or
 * version, has no root, or holds a malformed entry list is discarded as a whole; single malformed entries
 * (including a path that is absolute or leaves the root) are dropped.
 */
import { posix, win32 } from 'node:path';
import { Packr } from 'msgpackr';
import { isTitleIndexEntry, type TitleIndexEntry } from './title-index-entry.js';

/** The `format` tag of an index file. */
export const TITLE_INDEX_FORMAT = 'sessionctx-title-index';

/** The version this build reads and writes; any other version is discarded and rebuilt. */
export const TITLE_INDEX_VERSION = 1;

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

/** The content of an index file. */
export interface TitleIndexFileContent {
  /** The real path of the session root the entries belong to. */
  readonly root: string;
  /** Entries by artifact path relative to {@link root}. */
  readonly entries: Map<string, TitleIndexEntry>;
}

/**
 * True when `path` can key an entry: relative, non-empty, without a `..` component (it stays inside the
 * root), and indexable. Both separators count, so a file written on one platform is judged the same on another.
 */
export function isEntryKey(path: string): boolean {
  if (path === '' || posix.isAbsolute(path) || win32.isAbsolute(path)) return false;
  return isIndexablePath(path) && !path.split(/[\\/]/u).includes('..');
}

/** Encodes an index file for the root at `root` (its real path); entry keys are paths relative to it. */
export function encodeTitleIndex(root: string, entries: ReadonlyMap<string, TitleIndexEntry>): Uint8Array {
  return packr.pack({ format: TITLE_INDEX_FORMAT, version: TITLE_INDEX_VERSION, root, entries: [...entries] });
}

/**
 * The content of an index file, or `undefined` when the file must be discarded (not msgpack, another format
 * or version, no root, or no entry list).
 */
export function decodeTitleIndex(bytes: Uint8Array): TitleIndexFileContent | undefined {
  let content: unknown;
  try {
    content = packr.unpack(bytes);
  } catch {
    // Undecodable bytes are a corrupt index: the caller discards it and rebuilds.
    return undefined;
  }
  if (typeof content !== 'object' || content === null) return undefined;
  const { format, version, root, entries } = content as Record<string, unknown>;
  if (format !== TITLE_INDEX_FORMAT || version !== TITLE_INDEX_VERSION || typeof root !== 'string' || root === '' || !Array.isArray(entries)) return undefined;
  const out = new Map<string, TitleIndexEntry>();
  for (const pair of entries as unknown[]) {
    if (!Array.isArray(pair) || pair.length !== 2) continue;
    const [path, entry] = pair as [unknown, unknown];
    if (typeof path === 'string' && isEntryKey(path) && isTitleIndexEntry(entry)) out.set(path, entry);
  }
  return { root, entries: out };
}
