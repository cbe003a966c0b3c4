/**
 * Where sessionctx keeps its caches: in the user's cache directory, never inside a session root (a session
 * root is another tool's data directory, possibly read-only or shared). One function decides the platform
 * directory, one decides the title index file of a root; the store and `sessionctx index` both ask the latter,
 * so they always agree on the file.
 *
 * The environment is passed explicitly (the CLI passes its own, the library defaults to `process.env`), so a
 * caller that runs commands in-process with another environment gets that environment's cache.
 */
import { createHash } from 'node:crypto';
import { realpath } from 'node:fs/promises';
import { homedir as osHomedir } from 'node:os';
import { dirname, basename, join, posix, resolve, win32 } from 'node:path';

/** The application's folder name inside the user's cache directory. */
export const CACHE_APPLICATION_NAME = 'sessionctx';

/** The folder of title index files inside sessionctx's cache directory. */
export const TITLE_INDEX_CACHE_FOLDER = 'title-index';

/** The suffix of a title index file: the index format's version (SESSION-LOG.md §10.7). */
export const TITLE_INDEX_FILE_SUFFIX = '.v1';

/** How many hex digits of the root's SHA-256 name its index file (64 bits: collisions are detected anyway). */
const ROOT_DIGEST_HEX = 16;

/**
 * sessionctx's own cache directory for `platform`, or `undefined` when no absolute location can be
 * determined (no usable variable and `homedir` empty or relative), in which case caches stay in memory.
 *
 * - Windows (`win32`): `%LOCALAPPDATA%\sessionctx\Cache`, else `<homedir>\AppData\Local\sessionctx\Cache`.
 * - Every other platform: `$XDG_CACHE_HOME/sessionctx` when `XDG_CACHE_HOME` is an absolute path, else
 *   `~/Library/Caches/sessionctx` on macOS (`darwin`) and `~/.cache/sessionctx` elsewhere. An empty or
 *   relative `XDG_CACHE_HOME` is ignored, as the XDG Base Directory specification requires; `~` is not
 *   expanded (a value starting with `~` is relative, so ignored). An explicitly set, absolute
 *   `XDG_CACHE_HOME` is honoured on macOS too: it is only ever set on purpose there.
 *
 * Paths are joined with the target platform's rules (`path.win32` for Windows), so the answer for any
 * platform can be computed (and tested) on any other.
 */
export function userCacheDirectory(env: NodeJS.ProcessEnv, platform: NodeJS.Platform, homedir: string): string | undefined {
  if (platform === 'win32') {
    const localAppData = env['LOCALAPPDATA'];
    if (localAppData !== undefined && win32.isAbsolute(localAppData)) return win32.join(localAppData, CACHE_APPLICATION_NAME, 'Cache');
    if (!win32.isAbsolute(homedir)) return undefined;
    return win32.join(homedir, 'AppData', 'Local', CACHE_APPLICATION_NAME, 'Cache');
  }
  const xdg = env['XDG_CACHE_HOME'];
  if (xdg !== undefined && posix.isAbsolute(xdg)) return posix.join(xdg, CACHE_APPLICATION_NAME);
  if (!posix.isAbsolute(homedir)) return undefined;
  if (platform === 'darwin') return posix.join(homedir, 'Library', 'Caches', CACHE_APPLICATION_NAME);
  return posix.join(homedir, '.cache', CACHE_APPLICATION_NAME);
}

/**
 * The home directory `env` names (`USERPROFILE` on Windows, `HOME` elsewhere) when it is absolute, else the
 * process's (`os.homedir()`): an explicit environment decides the cache as fully as it can.
 */
export function homeDirectoryOf(env: NodeJS.ProcessEnv, platform: NodeJS.Platform): string {
  const named = platform === 'win32' ? env['USERPROFILE'] : env['HOME'];
  const isAbsolute = platform === 'win32' ? win32.isAbsolute : posix.isAbsolute;
  return named !== undefined && isAbsolute(named) ? named : osHomedir();
}

/**
 * The real path of `path`: `realpath` of it when it exists, else `realpath` of its deepest existing ancestor
 * with the missing components appended (so a root that does not exist yet keys the same file as it will once
 * created, e.g. below a symlinked temp directory), else the resolved path.
 */
export async function realPathOf(path: string): Promise<string> {
  const absolute = resolve(path);
  const missing: string[] = [];
  let current = absolute;
  for (;;) {
    try {
      return join(await realpath(current), ...missing.reverse());
    } catch {
      // Missing (or not resolvable): try the parent; the root directory always resolves, else give up below.
      const parent = dirname(current);
      if (parent === current) return absolute;
      missing.push(basename(current));
      current = parent;
    }
  }
}

/** The file name of a root's title index: the first 16 hex digits of SHA-256 of its real path, plus `.v1`. */
export function titleIndexFileName(realRoot: string): string {
  return `${createHash('sha256').update(realRoot, 'utf8').digest('hex').slice(0, ROOT_DIGEST_HEX)}${TITLE_INDEX_FILE_SUFFIX}`;
}

/** How {@link resolveTitleIndexLocation} decides the index file. */
export interface TitleIndexLocationOptions {
  /** An explicit index file (resolved against the root); wins over everything else and may lie inside the root. */
  readonly titleIndexPath?: string;
  /** sessionctx's cache directory (what {@link userCacheDirectory} returns); the index goes to `<it>/title-index/`. */
  readonly cacheDirectory?: string;
  /** The environment of the default cache directory (default `process.env`); its home is {@link homeDirectoryOf} it. */
  readonly env?: NodeJS.ProcessEnv;
}

/** Where a root's title index lives. */
export interface TitleIndexLocation {
  /** The index file, or `undefined` when there is no cache directory (the index then lives in memory only). */
  readonly indexPath: string | undefined;
  /** The root's real path ({@link realPathOf}): stored in the file, and a file naming another root is discarded. */
  readonly realRoot: string;
  /** Whether the index file's directory is sessionctx's to create (true for the cache, false for an explicit path). */
  readonly createDirectory: boolean;
}

/**
 * The title index file of `root` (SESSION-LOG.md §10.7): `titleIndexPath` when given; else
 * `<cacheDirectory or the user cache directory>/title-index/<sha256(realRoot) first 16 hex>.v1`. A symlink to a
 * root and the root itself share one file; a copy of a root gets its own.
 */
export async function resolveTitleIndexLocation(root: string, options: TitleIndexLocationOptions = {}): Promise<TitleIndexLocation> {
  const realRoot = await realPathOf(root);
  if (options.titleIndexPath !== undefined) {
    return { indexPath: resolve(root, options.titleIndexPath), realRoot, createDirectory: false };
  }
  let cacheDirectory = options.cacheDirectory === undefined ? undefined : resolve(options.cacheDirectory);
  if (cacheDirectory === undefined) {
    const env = options.env ?? process.env;
    cacheDirectory = userCacheDirectory(env, process.platform, homeDirectoryOf(env, process.platform));
  }
  if (cacheDirectory === undefined) return { indexPath: undefined, realRoot, createDirectory: false };
  return { indexPath: join(cacheDirectory, TITLE_INDEX_CACHE_FOLDER, titleIndexFileName(realRoot)), realRoot, createDirectory: true };
}
