/**
 * The engine's full-text search (docs/SEARCH.md): its configuration validated when the engine is built, its service
 * and SQLite worker loaded by the first search only (`LazySearch`), fed by discovery's listing and labels and by the
 * live sessions' byte logs.
 */
import type { SessionTitleObservation } from '../corpus/session-query.js';
import type { InMemoryLiveRegistry } from '../corpus/live-registry.js';
import type { LiveLogTracker } from '../live/live-log-tracker.js';
import { resolveSearchConfig } from '../search/search-config.js';
import type { SearchConfig } from '../search/search-config.js';
import type { LiveSearchSource } from '../search/search-service.js';
import type { JsonlSessionStore } from '../store/jsonl-store.js';
import type { EngineDiscovery } from './engine-discovery.js';
import { LazySearch } from './lazy-search.js';
import type { LocalSessionEngineOptions } from './local-engine-types.js';

/** What the search is built from. */
export interface EngineSearchInput {
  readonly options: LocalSessionEngineOptions;
  readonly store: JsonlSessionStore | undefined;
  readonly discovery: EngineDiscovery;
  readonly registry: InMemoryLiveRegistry;
  readonly liveLogs: LiveLogTracker;
}

/** The search part of one engine and its resolved configuration. */
export interface EngineSearch {
  readonly search: LazySearch;
  readonly config: SearchConfig;
}

/**
 * Builds the search part; starts its worker now when the options ask for it (a long-lived engine).
 * @throws SearchError `SEARCH_INVALID_CONFIG` for a bad `search` configuration.
 */
export async function buildEngineSearch(input: EngineSearchInput): Promise<EngineSearch> {
  const { options, store, discovery, registry, liveLogs } = input;
  const { warm } = discovery;
  const config = resolveSearchConfig(options.search, options.store?.env ?? process.env, options.store?.cacheDirectory);
  const search = new LazySearch({
    index: {
      databasePath: config.databasePath,
      busyTimeoutMs: config.busyTimeoutMs,
      ...(options.searchModule === undefined ? {} : { moduleName: options.searchModule }),
    },
    service: {
      config,
      // The listing comes through discovery's path (the warm corpus view when the engine keeps one): persisted sessions
      // only (the service leaves out those that are live).
      store:
        store === undefined
          ? undefined
          : {
              config: store.config,
              list: async (signal) =>
                (await warm?.persistedHeaders(signal)) ??
                (await discovery.listSessions(signal)).filter((record) => record.persisted).map((record) => record.header),
            },
      // Labels as discovery gives them (from the warm view's memory when the engine keeps one).
      readTitleSnapshots: (ids, signal) => discovery.warmQuery.readTitleSnapshots(ids, signal) as Promise<SessionTitleObservation[]>,
      ...(options.onSearchProgress === undefined ? {} : { onProgress: options.onSearchProgress }),
      // A long-lived engine's search skips its stat pass while the warm view saw no change, and looks only at the
      // sessions the view reports changed otherwise (bounded as discovery is).
      ...(warm === undefined
        ? {}
        : { corpusChanges: (since: object | undefined, signal?: AbortSignal) => warm.corpusChanges(since, signal) }),
      // Live sessions are searched from their byte logs (O(1) captures), as the reference pipeline reads them.
      live: () => {
        const sources: LiveSearchSource[] = [];
        for (const session of registry.list()) {
          try {
            sources.push({ header: session.header, ...liveLogs.snapshot(session) });
          } catch {
            // SESSION_LOG_TOO_DEEP: this session's log cannot be encoded, so it is not searched; the others still are.
          }
        }
        return sources;
      },
    },
  });
  if (options.startSearchWorker === true && config.enabled && store !== undefined) (await search.parts()).index.start();
  return { search, config };
}
