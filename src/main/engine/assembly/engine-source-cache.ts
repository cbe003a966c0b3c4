/** The engine's source cache of `prepare()` (README "Source cache"): where it lives and whether it is on. */
import { join } from 'node:path';
import { SourceCache } from '../cache/source-cache.js';
import { SOURCE_CACHE_FOLDER, resolveSourceCacheConfig } from '../cache/source-cache-config.js';
import type { JsonlSessionStore } from '../store/jsonl-store.js';
import type { LocalSessionEngineOptions } from './local-engine-types.js';

/**
 * The source cache of an engine over `store`, or `undefined` when it is off or there is no root. It lives beside the
 * title index: in the store's cache directory when one is named, else the user cache directory.
 * @throws SourceCacheError for a bad `sourceCache` configuration.
 */
export function buildEngineSourceCache(options: LocalSessionEngineOptions, store: JsonlSessionStore | undefined): SourceCache | undefined {
  const storeCache = options.store?.cacheDirectory;
  const input =
    storeCache === undefined || options.sourceCache === false || options.sourceCache?.directory !== undefined
      ? options.sourceCache
      : { ...(options.sourceCache ?? {}), directory: join(storeCache, SOURCE_CACHE_FOLDER) };
  const config = resolveSourceCacheConfig(input, options.store?.env ?? process.env);
  return config.enabled && store !== undefined ? new SourceCache(config) : undefined;
}
