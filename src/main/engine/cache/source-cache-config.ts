/**
 * Configuration of the source cache (issue 15 item 2), validated once when the engine is built: whether it is on,
 * how many bytes its in-memory entries may hold (an LRU by estimated bytes), and the directory its files live in.
 */
import { join } from 'node:path';
import { homeDirectoryOf, userCacheDirectory } from '../config/cache-location.js';

/** Default bound of the in-memory entries: 64 MiB of estimated entry size. */
export const DEFAULT_SOURCE_CACHE_MAX_BYTES = 64 * 1024 * 1024;

/** The folder of the source cache inside sessionctx's cache directory. */
export const SOURCE_CACHE_FOLDER = 'source-cache';

/** Stable codes of source-cache failures that reach a caller (only configuration: the cache itself never fails a call). */
export type SourceCacheErrorCode = 'SESSION_SOURCE_CACHE_INVALID_CONFIG';

/** An invalid source-cache configuration. */
export class SourceCacheError extends Error {
  /** The stable classification. */
  readonly code: SourceCacheErrorCode;

  constructor(code: SourceCacheErrorCode, message: string) {
    super(message);
    this.name = 'SourceCacheError';
    this.code = code;
  }
}

/** What a caller may pass (`false` turns the cache off); values are validated, not trusted. */
export type SourceCacheConfigInput =
  | false
  | {
      /** Estimated bytes the in-memory entries may hold (a non-negative safe integer; 0 keeps none in memory). */
      readonly maxBytes?: unknown;
      /** Directory of the cache files; `null` keeps the cache in memory only. Default: `<user cache dir>/source-cache`. */
      readonly directory?: unknown;
    };

/** The resolved configuration. */
export interface SourceCacheConfig {
  readonly enabled: boolean;
  readonly maxBytes: number;
  /** Where entry files live, or `null` for memory only. */
  readonly directory: string | null;
}

/**
 * Resolves and validates the source-cache configuration.
 *
 * @param input - the caller's value (`undefined`: defaults).
 * @param env - the environment of the default directory (XDG_CACHE_HOME, HOME, LOCALAPPDATA).
 * @throws SourceCacheError `SESSION_SOURCE_CACHE_INVALID_CONFIG` naming the key.
 */
export function resolveSourceCacheConfig(
  input: SourceCacheConfigInput | undefined,
  env: NodeJS.ProcessEnv = process.env,
): SourceCacheConfig {
  if (input === false) return Object.freeze({ enabled: false, maxBytes: 0, directory: null });
  if (input !== undefined && (typeof input !== 'object' || input === null)) {
    throw new SourceCacheError('SESSION_SOURCE_CACHE_INVALID_CONFIG', 'sourceCache must be false or an object');
  }
  const maxBytes = input?.maxBytes ?? DEFAULT_SOURCE_CACHE_MAX_BYTES;
  if (!Number.isSafeInteger(maxBytes) || (maxBytes as number) < 0) {
    throw new SourceCacheError('SESSION_SOURCE_CACHE_INVALID_CONFIG', 'sourceCache.maxBytes must be a non-negative safe integer');
  }
  let directory: string | null;
  if (input?.directory === undefined) {
    const base = userCacheDirectory(env, process.platform, homeDirectoryOf(env, process.platform));
    directory = base === undefined ? null : join(base, SOURCE_CACHE_FOLDER);
  } else if (input.directory === null || (typeof input.directory === 'string' && input.directory !== '')) {
    directory = input.directory;
  } else {
    throw new SourceCacheError('SESSION_SOURCE_CACHE_INVALID_CONFIG', 'sourceCache.directory must be a non-empty string or null');
  }
  return Object.freeze({ enabled: true, maxBytes: maxBytes as number, directory });
}
