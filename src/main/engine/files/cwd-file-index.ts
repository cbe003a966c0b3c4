/**
 * The files a session's `@` picker offers (issue 28, docs/WEB.md "The @ source"): paths under one working directory,
 * from a bounded, in-memory index per cwd. Only names are read (directory listings and `lstat`); no file is opened.
 *
 * Rules, each for a reason:
 * - bounded: at most `maxEntries` paths per cwd (breadth first, so the top levels are always in) and `maxResults`
 *   per answer, so a home directory as cwd costs one bounded walk, not a minute of I/O;
 * - `.git` and `node_modules` (`excludedDirectories`) are neither walked nor offered;
 * - a symbolic link is neither followed nor offered (a link to `/` would put the whole disk in the index, and a
 *   link out of the cwd would offer a path the cwd does not hold), and a query's directory is resolved segment by
 *   segment with `lstat`, refusing `..`, `.` and links, so nothing outside the cwd is ever listed;
 * - a name the `@path` grammar cannot carry (a control character such as a newline, or a `"`) is left out;
 * - dot-files and dot-directories are offered only to a query that starts with a dot, as shells complete them;
 * - an index is rebuilt after `ttlMs`, or at once when the caller's freshness token changed (the session's log
 *   revision: its tools may have changed files), and at most `maxDirectories` cwds are kept (least recently used).
 */
import { lstat, readdir, stat } from 'node:fs/promises';
import type { Dirent } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { raceWithSignal } from '../signal/abort.js';
import { FileIndexError } from './file-index-error.js';

/** One path the picker may offer, relative to the cwd with `/` separators. */
export interface FileCandidate {
  readonly path: string;
  /** A directory keeps the picker open to descend; a file ends the reference. */
  readonly kind: 'file' | 'directory';
}

/** One answer of {@link CwdFileIndex.list}. */
export interface FileListing {
  /** At most `maxResults`, best first. */
  readonly candidates: readonly FileCandidate[];
  /** The cwd holds more than `maxEntries` paths, so a bare query searched only the first `maxEntries`. */
  readonly truncated: boolean;
}

/** The bounds and exclusions of {@link CwdFileIndex}. */
export interface CwdFileIndexOptions {
  /** Candidates per answer (default 20). */
  readonly maxResults?: number;
  /** Paths indexed per cwd (default 10,000). */
  readonly maxEntries?: number;
  /** Directory names never walked or offered (default `.git`, `node_modules`). */
  readonly excludedDirectories?: readonly string[];
  /** How long an index is reused (default 30 s). */
  readonly ttlMs?: number;
  /** How many cwds keep an index (default 16). */
  readonly maxDirectories?: number;
  /** The clock (tests pass their own). */
  readonly now?: () => number;
}

/** The defaults of {@link CwdFileIndexOptions}. */
export const FILE_INDEX_DEFAULTS = {
  maxResults: 20,
  maxEntries: 10_000,
  excludedDirectories: ['.git', 'node_modules'],
  ttlMs: 30_000,
  maxDirectories: 16,
} as const;

/** What one lookup may carry besides the cwd and the query. */
export interface FileListingRequest {
  /** Changes when the files may have changed (the session's log revision); a new value rebuilds the index. */
  readonly freshness?: string;
  readonly signal?: AbortSignal;
}

/** One cwd's index: the walk (shared by concurrent lookups), when it started, the freshness it was built for. */
interface IndexedCwd {
  readonly walk: Promise<{ readonly paths: readonly FileCandidate[]; readonly truncated: boolean }>;
  readonly builtAt: number;
  readonly freshness: string | undefined;
}

// C0 and C1 controls and the quote: the `@path` / `@"path"` grammar cannot carry them.
const UNREFERENCEABLE = /[\u0000-\u001f\u007f-\u009f"]/u;

function positiveInteger(value: number, name: string): number {
  if (!Number.isSafeInteger(value) || value <= 0) throw new RangeError(`${name} must be a positive safe integer, got ${value}`);
  return value;
}

/** The per-cwd file index of the `@` picker. */
export class CwdFileIndex {
  readonly #maxResults: number;
  readonly #maxEntries: number;
  readonly #excluded: ReadonlySet<string>;
  readonly #ttlMs: number;
  readonly #maxDirectories: number;
  readonly #now: () => number;
  readonly #indexes = new Map<string, IndexedCwd>();

  /**
   * @param options - the bounds; each number must be a positive safe integer
   * @throws RangeError for a bound that is not a positive safe integer, or an excluded name with a `/`
   */
  constructor(options: CwdFileIndexOptions = {}) {
    this.#maxResults = positiveInteger(options.maxResults ?? FILE_INDEX_DEFAULTS.maxResults, 'maxResults');
    this.#maxEntries = positiveInteger(options.maxEntries ?? FILE_INDEX_DEFAULTS.maxEntries, 'maxEntries');
    this.#ttlMs = positiveInteger(options.ttlMs ?? FILE_INDEX_DEFAULTS.ttlMs, 'ttlMs');
    this.#maxDirectories = positiveInteger(options.maxDirectories ?? FILE_INDEX_DEFAULTS.maxDirectories, 'maxDirectories');
    const excluded = options.excludedDirectories ?? FILE_INDEX_DEFAULTS.excludedDirectories;
    for (const name of excluded) {
      if (name === '' || name.includes('/') || name.includes('\\'))
        throw new RangeError(`an excluded directory is a bare name, got ${JSON.stringify(name)}`);
    }
    this.#excluded = new Set(excluded);
    this.#now = options.now ?? Date.now;
  }

  /**
   * The candidates for `query` under `cwd`: a query with a `/` lists that directory as it is now (its last segment
   * filters); a bare query searches the whole index.
   * @param cwd - an absolute directory (the session's cwd)
   * @param query - what follows `@` (or `@"`), `\` read as `/`
   * @param request - the freshness token and the caller's signal
   * @throws FileIndexError `FILE_INDEX_CWD_INVALID` for a relative cwd, `FILE_INDEX_CWD_MISSING` when it is not a
   *   directory here, `FILE_INDEX_CWD_UNREADABLE` when it cannot be listed
   */
  async list(cwd: string, query: string, request: FileListingRequest = {}): Promise<FileListing> {
    const { signal } = request;
    signal?.throwIfAborted();
    if (!isAbsolute(cwd)) throw new FileIndexError('FILE_INDEX_CWD_INVALID', `the cwd ${JSON.stringify(cwd)} is not an absolute path`);
    const typed = query.replaceAll('\\', '/');
    const slash = typed.lastIndexOf('/');
    if (slash >= 0 || typed === '') {
      const directory = typed.slice(0, slash + 1);
      const work = this.#listDirectory(cwd, directory, typed.slice(slash + 1));
      return { candidates: await (signal === undefined ? work : raceWithSignal(work, signal)), truncated: false };
    }
    const walk = this.#index(cwd, request.freshness).walk;
    const { paths, truncated } = await (signal === undefined ? walk : raceWithSignal(walk, signal));
    const visible = typed.startsWith('.') ? paths : paths.filter((entry) => !hasDotSegment(entry.path));
    return { candidates: rank(visible, typed, this.#maxResults), truncated };
  }

  /**
   * Drops the index of `cwd` (of every cwd without one), so the next bare query walks again.
   * @param cwd - the cwd whose files changed
   */
  invalidate(cwd?: string): void {
    if (cwd === undefined) this.#indexes.clear();
    else this.#indexes.delete(cwd);
  }

  /** The index of `cwd`, reused while it is younger than the TTL and built for the same freshness. */
  #index(cwd: string, freshness: string | undefined): IndexedCwd {
    const now = this.#now();
    const kept = this.#indexes.get(cwd);
    if (kept !== undefined && now - kept.builtAt < this.#ttlMs && kept.freshness === freshness) {
      // Most recently used last, so the first key is the one to drop.
      this.#indexes.delete(cwd);
      this.#indexes.set(cwd, kept);
      return kept;
    }
    const entry: IndexedCwd = { walk: this.#walk(cwd), builtAt: now, freshness };
    this.#indexes.delete(cwd);
    this.#indexes.set(cwd, entry);
    // A failed walk is not kept: the next lookup tries again (the directory may have appeared).
    entry.walk.catch(() => {
      if (this.#indexes.get(cwd) === entry) this.#indexes.delete(cwd);
    });
    while (this.#indexes.size > this.#maxDirectories) {
      const oldest = this.#indexes.keys().next().value as string;
      this.#indexes.delete(oldest);
    }
    return entry;
  }

  /** The breadth-first walk of `cwd`, bounded by `maxEntries`. */
  async #walk(cwd: string): Promise<{ paths: FileCandidate[]; truncated: boolean }> {
    const paths: FileCandidate[] = [];
    const queue: string[] = [''];
    const root = await readRoot(cwd);
    let entries: Dirent[] | undefined = root;
    for (let at = 0; at < queue.length; at += 1) {
      const relative = queue[at] as string;
      // An unreadable subdirectory contributes nothing; the rest of the tree is still useful.
      entries ??= await readSorted(join(cwd, relative)).catch(() => []);
      for (const entry of entries) {
        const kind = this.#kindOf(entry);
        if (kind === undefined) continue;
        if (paths.length >= this.#maxEntries) return { paths, truncated: true };
        const path = relative === '' ? entry.name : `${relative}/${entry.name}`;
        paths.push({ path, kind });
        if (kind === 'directory') queue.push(path);
      }
      entries = undefined;
    }
    return { paths, truncated: false };
  }

  /** One directory of the cwd as it is now, filtered by `fragment`. */
  async #listDirectory(cwd: string, directory: string, fragment: string): Promise<FileCandidate[]> {
    const segments = directory.split('/').filter((segment) => segment !== '');
    if (directory.startsWith('/') || segments.some((segment) => segment === '..' || segment === '.' || this.#excluded.has(segment)))
      return [];
    const root = await readRoot(cwd);
    let entries = root;
    let at = cwd;
    for (const segment of segments) {
      at = join(at, segment);
      // `lstat`, not `stat`: a link named like a directory is never entered.
      const info = await lstat(at).catch(() => undefined);
      if (info === undefined || !info.isDirectory()) return [];
    }
    if (segments.length > 0) entries = await readSorted(at).catch(() => []);
    const prefix = segments.length === 0 ? '' : `${segments.join('/')}/`;
    const offered: FileCandidate[] = [];
    for (const entry of entries) {
      if (entry.name.startsWith('.') && !fragment.startsWith('.')) continue;
      const kind = this.#kindOf(entry);
      if (kind !== undefined) offered.push({ path: `${prefix}${entry.name}`, kind });
    }
    return rank(offered, fragment, this.#maxResults);
  }

  /** What an entry is offered as, or `undefined` when it is not offered (a link, a device, an excluded name). */
  #kindOf(entry: Dirent): FileCandidate['kind'] | undefined {
    if (UNREFERENCEABLE.test(entry.name)) return undefined;
    if (entry.isDirectory()) return this.#excluded.has(entry.name) ? undefined : 'directory';
    return entry.isFile() ? 'file' : undefined;
  }
}

/** The cwd's own listing; the cwd itself may be a link (a person's cwd as they typed it), its entries never are followed. */
async function readRoot(cwd: string): Promise<Dirent[]> {
  try {
    const info = await stat(cwd);
    if (!info.isDirectory()) throw new FileIndexError('FILE_INDEX_CWD_MISSING', `the cwd ${cwd} is not a directory`);
    return await readSorted(cwd);
  } catch (error) {
    if (error instanceof FileIndexError) throw error;
    const reason = error instanceof Error && 'code' in error ? String(error.code) : String(error);
    if (reason === 'ENOENT' || reason === 'ENOTDIR') {
      throw new FileIndexError('FILE_INDEX_CWD_MISSING', `the cwd ${cwd} does not exist on this machine`, { cause: error });
    }
    throw new FileIndexError('FILE_INDEX_CWD_UNREADABLE', `the cwd ${cwd} cannot be listed (${reason})`, { cause: error });
  }
}

async function readSorted(directory: string): Promise<Dirent[]> {
  const entries = await readdir(directory, { withFileTypes: true });
  return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function hasDotSegment(path: string): boolean {
  return path.startsWith('.') || path.includes('/.');
}

/**
 * How well `entry` matches `needle` (lower case), smaller is better: the name equals it, starts with it, holds it;
 * the path holds it; its characters appear in order in the path. `undefined`: no match.
 */
function tier(entry: FileCandidate, needle: string): number | undefined {
  const path = entry.path.toLowerCase();
  const name = path.slice(path.lastIndexOf('/') + 1);
  if (name === needle) return 0;
  if (name.startsWith(needle)) return 1;
  if (name.includes(needle)) return 2;
  if (path.includes(needle)) return 3;
  let from = 0;
  for (const char of needle) {
    const found = path.indexOf(char, from);
    if (found < 0) return undefined;
    from = found + char.length;
  }
  return 4;
}

/**
 * The best `limit` of `entries` for `query`: by tier, then shorter paths, then code-unit order. An empty query keeps
 * a directory's own order with its subdirectories first.
 */
function rank(entries: readonly FileCandidate[], query: string, limit: number): FileCandidate[] {
  const needle = query.toLowerCase();
  const scored: { entry: FileCandidate; tier: number }[] = [];
  for (const entry of entries) {
    const found = needle === '' ? (entry.kind === 'directory' ? 0 : 1) : tier(entry, needle);
    if (found !== undefined) scored.push({ entry, tier: found });
  }
  scored.sort(
    (a, b) =>
      a.tier - b.tier ||
      (needle === '' ? 0 : a.entry.path.length - b.entry.path.length) ||
      (a.entry.path < b.entry.path ? -1 : a.entry.path > b.entry.path ? 1 : 0),
  );
  return scored.slice(0, limit).map((item) => item.entry);
}
