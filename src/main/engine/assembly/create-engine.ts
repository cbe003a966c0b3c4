/**
 * The in-process engine (ARCHITECTURE.md §2, §5): a JSONL store, the query layer, the worker pool and
 * the reference service wired so that every CPU stage over a log runs on the pool — `prepare` renders
 * sources with `readSource` tasks, discovery observes titles with `observeTitles` batches, and
 * `readSurface` inspects with `inspect` tasks — while this thread only orchestrates.
 */
import type { SessionId } from '../../../protocol/events.js';
import { InMemoryLiveRegistry } from '../corpus/live-registry.js';
import type { LiveSession } from '../corpus/live-registry.js';
import { SessionQuery } from '../corpus/session-query.js';
import { LiveLogTracker } from '../live/live-log-tracker.js';
import { InThreadTaskRunner } from '../pool/in-thread-runner.js';
import { PoolSourceRenderer } from '../pool/pool-source-renderer.js';
import type { SourceServedReport } from '../pool/pool-source-renderer.js';
import { SourceCache } from '../cache/source-cache.js';
import { SOURCE_CACHE_FOLDER, resolveSourceCacheConfig } from '../cache/source-cache-config.js';
import { join } from 'node:path';
import { PoolTitleSnapshots } from '../pool/pool-title-snapshots.js';
import { PooledSessionStorage } from '../pool/pooled-storage.js';
import type { TaskRunner } from '../pool/task-runner.js';
import { WorkerPool } from '../pool/worker-pool.js';
import type { ReferenceSessionQuery } from '../reference/reference-types.js';
import { SessionReferenceService } from '../reference/session-reference-service.js';
import { JsonlSessionStore } from '../store/jsonl-store.js';
import type { JsonlSessionStoreOptions } from '../store/jsonl-store.js';
import { detectCompression } from '../store/detect-compression.js';
import { DEFAULT_COMPRESSION } from '../store/store-config.js';
import type { Compression } from '../../../protocol/storage-paths.js';
import type { SessionListReport, SessionRecord, SessionTitleObservation } from '../corpus/session-query.js';
import type { ListingProblem } from '../../../protocol/listing-problem.js';
import { ReportingSessionQuery } from '../corpus/reporting-session-query.js';
import type { ObserveAllTitlesOptions, SessionEngine, SessionEngineOptions, TitleScanSummary } from './engine-types.js';
import { resolveCorpusViewConfig } from '../corpus/corpus-view-config.js';
import { CorpusView, type CorpusViewStats } from '../corpus/corpus-view.js';
import { recordDiscovery, WarmDiscovery, type DiscoveryReport } from '../corpus/warm-discovery.js';
import { resolveSearchConfig } from '../search/search-config.js';
import type { LiveSearchSource, SearchBuildOptions, SearchIndexClearResult, SearchIndexStatus } from '../search/search-service.js';
import type { SyncSummary } from '../../../workers/search/search-messages.js';
import { LazySearch } from './lazy-search.js';

/** The in-process engine: the shared API plus live-session attachment, which needs the host's objects. */
export interface LocalSessionEngine extends SessionEngine {
  /** The task runner (the pool, or the in-thread fallback). */
  readonly runner: TaskRunner;
  /** The JSONL store over the root (`undefined` without a root): the writers (`dcp`, `script run`) append through it. */
  readonly store: JsonlSessionStore | undefined;
  /** The root's encoding, as given or detected. */
  readonly compression: Compression;
  /**
   * Attaches a live session; its byte log is kept from now on, so captures stay O(1). With `gradual`, the events the
   * session already has are encoded in slices of about `gradual.sliceMs` between turns of the event loop instead of
   * now (a host attaching a restored long session); a capture meanwhile finishes the encoding at once.
   */
  attachLive(session: LiveSession, options?: { readonly gradual?: { readonly sliceMs: number } }): void;
  /** Detaches a live session. */
  detachLive(sessionId: SessionId): boolean;
  /** The source cache of `prepare()`, or `undefined` when it is off (its `stats` are the cache's metrics). */
  readonly sourceCache: SourceCache | undefined;
  /** Counters of the warm corpus view (`undefined` when discovery is cold: `corpus.watch: false`, no root, strict listing, `titles: 'pool'`). */
  corpusViewStats(): CorpusViewStats | undefined;
  /**
   * Calls `listener` after each burst of changes the warm corpus view was notified of (see `CorpusView.onChange`);
   * `undefined` when the engine has no warm view (`corpus.watch: false`, no root, a strict listing).
   * @returns a function that removes the listener
   */
  onCorpusChange(listener: () => void): (() => void) | undefined;
  /**
   * Brings the search index up to date with the root now, as the first search would (`sessionctx index build`).
   * @throws SearchError `SEARCH_DISABLED`, `SEARCH_UNAVAILABLE`, `SEARCH_INDEX_BUSY`, `SEARCH_FOREIGN_DATABASE`, `SEARCH_INDEX_FAILED`.
   */
  buildSearchIndex(options?: SearchBuildOptions): Promise<SyncSummary>;
  /**
   * The search index file and what it holds of the root; creates and modifies nothing.
   * @throws SearchError `SEARCH_UNAVAILABLE`, `SEARCH_INDEX_BUSY`, `SEARCH_FOREIGN_DATABASE`, `SEARCH_INDEX_FAILED`.
   */
  searchIndexStatus(signal?: AbortSignal): Promise<SearchIndexStatus>;
  /**
   * Removes the search index file (one for every root); the next search rebuilds it.
   * @throws SearchError `SEARCH_INDEX_BUSY`, `SEARCH_FOREIGN_DATABASE` (left alone), `SEARCH_INDEX_FAILED`.
   */
  clearSearchIndex(signal?: AbortSignal): Promise<SearchIndexClearResult>;
}

/** Options of an in-process engine: the plain-data options plus what cannot cross a thread. */
export interface LocalSessionEngineOptions extends SessionEngineOptions {
  /** Further store options (the title index location, the listing mode); the root and encoding come from above. */
  readonly store?: Omit<JsonlSessionStoreOptions, 'root' | 'compression'>;
  /**
   * Called once per session whose title could not be read during discovery (the session is still offered,
   * labelled by its id, as dsh does): the CLI prints it as a warning instead of leaving the fallback silent.
   */
  readonly onTitleFailure?: (sessionId: SessionId, reason: unknown) => void;
  /**
   * Called once per damaged artifact (path and code) that a listing of this engine skipped — a listing of its own
   * or one inside discovery or preparation — so a host or the CLI can say what it left out.
   */
  readonly onListingProblem?: (problem: ListingProblem) => void;
  /**
   * Called once per source a `prepare()` rendered, with whether it was served `warm` (unchanged, from the source
   * cache), `appended` (only its new bytes read) or `cold` (read whole; live sources and an engine without the cache
   * always). Reports never change the prepared result.
   */
  readonly onSourceServed?: (report: SourceServedReport) => void;
  /**
   * Called after each discovery call (`listCandidates`, `candidates`, `listSessions`, `listSessionsReport`) with how
   * it was served — from the warm view, incrementally, after a re-validation, or by a cold scan — for benchmarks
   * and a host's metrics. Results do not depend on it.
   */
  readonly onDiscovery?: (report: DiscoveryReport) => void;
  /** Progress of the search index's update before a search (sessions checked of the listing): the CLI's progress bar. */
  readonly onSearchProgress?: (done: number, total: number) => void;
  /** The native SQLite module search loads (default `better-sqlite3`; tests name a missing one: `SEARCH_UNAVAILABLE`). */
  readonly searchModule?: string;
  /**
   * Start the search worker now instead of on the first search: for a long-lived engine that serves searches (MCP,
   * the Web UI). Starting a thread costs this thread about 10 ms once; this way it is not part of a search.
   */
  readonly startSearchWorker?: boolean;
}

/**
 * Builds an engine in this thread. Validates every configuration first (store, pool, query and
 * reference limits throw their typed `*_INVALID_CONFIG` errors); no worker thread starts before the
 * first task.
 */
export async function createEngine(options: LocalSessionEngineOptions = {}): Promise<LocalSessionEngine> {
  const corpus = resolveCorpusViewConfig(options.corpus);
  const poolConfig = { size: options.poolSize ?? null, abortGraceMs: options.abortGraceMs ?? null };
  const runner: TaskRunner = options.workers === false ? new InThreadTaskRunner(poolConfig) : new WorkerPool(poolConfig);
  // Defaults are resolved here, once: the encoding is the root's own unless the caller names one.
  const compression: Compression =
    options.compression ?? (options.root === undefined ? DEFAULT_COMPRESSION : await detectCompression(options.root));
  const store =
    options.root === undefined ? undefined : await JsonlSessionStore.open({ root: options.root, compression, ...(options.store ?? {}) });
  const registry = new InMemoryLiveRegistry();
  const liveLogs = new LiveLogTracker();
  const storage = store === undefined ? undefined : new PooledSessionStorage(store, runner);
  const query = new SessionQuery({
    registry,
    ...(storage === undefined ? {} : { storage }),
    ...(options.query === undefined ? {} : { config: options.query }),
  });
  const titles =
    (options.titles ?? 'index') === 'index'
      ? new SessionQuery({
          registry,
          ...(store === undefined ? {} : { storage: store }),
          ...(options.query === undefined ? {} : { config: options.query }),
        })
      : new PoolTitleSnapshots({
          runner,
          registry,
          ...(store === undefined ? {} : { storage: store }),
          ...(options.titleBatchSize === undefined ? {} : { batchSize: options.titleBatchSize }),
        });
  // Discovery from memory in a long-lived engine (issue 15); exact reads below never use it.
  const view =
    corpus.watch && store !== undefined && store.config.listing === 'tolerant' && titles instanceof SessionQuery
      ? new CorpusView({ config: store.config, revalidateMs: corpus.revalidateMs })
      : undefined;
  const warm =
    view === undefined || store === undefined
      ? undefined
      : new WarmDiscovery({
          store,
          registry,
          view,
          cold: {
            listSessionsReport: (signal) => query.listSessionsReport(signal),
            readTitleSnapshots: (ids, signal) => titles.readTitleSnapshots(ids, signal),
          },
          ...(options.query === undefined ? {} : { queryConfig: options.query }),
        });
  const reportedProblems = new Set<string>();
  function reportProblems(problems: readonly ListingProblem[]): void {
    for (const problem of problems) {
      const key = `${problem.code}\u0000${problem.path}`;
      if (reportedProblems.has(key)) continue;
      reportedProblems.add(key);
      options.onListingProblem?.(problem);
    }
  }
  async function listSessionsReport(signal?: AbortSignal): Promise<SessionListReport> {
    const report = warm === undefined ? await query.listSessionsReport(signal) : await warm.listSessionsReport(signal);
    reportProblems(report.problems);
    return report;
  }
  const listSessions = async (signal?: AbortSignal): Promise<SessionRecord[]> => (await listSessionsReport(signal)).records;
  // One report per session across both title paths below.
  const reportedTitleFailures = new Set<string>();
  const onTitleFailure =
    options.onTitleFailure === undefined
      ? undefined
      : (sessionId: SessionId, reason: unknown): void => {
          if (reportedTitleFailures.has(sessionId)) return;
          reportedTitleFailures.add(sessionId);
          options.onTitleFailure?.(sessionId, reason);
        };
  const sessionQuery: ReferenceSessionQuery = {
    listSessions,
    readSurface: (id, signal) => query.readSurface(id, signal),
    readTitleSnapshots: (ids, signal) => titles.readTitleSnapshots(ids, signal),
  };
  // Discovery reads the shared (undetached) warm records and titles; the service only reads them.
  const warmQuery: ReferenceSessionQuery =
    warm === undefined
      ? sessionQuery
      : {
          listSessions: async (signal) => {
            const report = await warm.discoveryReport(signal);
            reportProblems(report.problems);
            return report.records;
          },
          readSurface: sessionQuery.readSurface,
          readTitleSnapshots: (ids, signal) => warm.readTitleSnapshots(ids, signal),
        };
  const titleQuery: ReferenceSessionQuery =
    onTitleFailure === undefined ? sessionQuery : new ReportingSessionQuery(sessionQuery, onTitleFailure);
  const discoveryQuery: ReferenceSessionQuery =
    onTitleFailure === undefined ? warmQuery : new ReportingSessionQuery(warmQuery, onTitleFailure);
  // The source cache lives beside the title index: in the store's cache directory when one is named.
  const storeCache = options.store?.cacheDirectory;
  const sourceCacheInput =
    storeCache === undefined || options.sourceCache === false || options.sourceCache?.directory !== undefined
      ? options.sourceCache
      : { ...(options.sourceCache ?? {}), directory: join(storeCache, SOURCE_CACHE_FOLDER) };
  const cacheConfig = resolveSourceCacheConfig(sourceCacheInput, options.store?.env ?? process.env);
  const sourceCache = cacheConfig.enabled && store !== undefined ? new SourceCache(cacheConfig) : undefined;
  const renderer = new PoolSourceRenderer({
    runner,
    registry,
    liveLogs,
    damagedLogErrors: query.config.damagedLogErrors,
    ...(store === undefined ? {} : { storage: store }),
    ...(sourceCache === undefined ? {} : { sourceCache }),
    ...(options.onSourceServed === undefined ? {} : { onSourceServed: options.onSourceServed }),
  });
  const service = new SessionReferenceService({
    sessionQuery: discoveryQuery,
    renderer,
    ...(options.reference === undefined ? {} : { config: options.reference }),
  });

  // Search: validated now, its worker started by the first search only.
  const searchConfig = resolveSearchConfig(options.search, options.store?.env ?? process.env, storeCache);
  const search = new LazySearch({
    index: {
      databasePath: searchConfig.databasePath,
      busyTimeoutMs: searchConfig.busyTimeoutMs,
      ...(options.searchModule === undefined ? {} : { moduleName: options.searchModule }),
    },
    service: {
      config: searchConfig,
      // The listing comes through discovery's path (the warm corpus view when the engine keeps one): persisted sessions
      // only (the service leaves out those that are live).
      store:
        store === undefined
          ? undefined
          : {
              config: store.config,
              list: async (signal) =>
                (await warm?.persistedHeaders(signal)) ??
                (await listSessions(signal)).filter((record) => record.persisted).map((record) => record.header),
            },
      // Labels as discovery gives them (from the warm view's memory when the engine keeps one).
      readTitleSnapshots: (ids, signal) => warmQuery.readTitleSnapshots(ids, signal) as Promise<SessionTitleObservation[]>,
      ...(options.onSearchProgress === undefined ? {} : { onProgress: options.onSearchProgress }),
      // A long-lived engine's search skips its stat pass while the warm view saw no change (bounded as discovery is).
      ...(warm === undefined ? {} : { corpusVersion: (signal?: AbortSignal) => warm.corpusVersion(signal) }),
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

  if (options.startSearchWorker === true && searchConfig.enabled && store !== undefined) (await search.parts()).index.start();

  async function observeAllTitles(scan: ObserveAllTitlesOptions = {}): Promise<TitleScanSummary> {
    const ids = (await listSessions(scan.signal)).map((record) => record.header.id);
    let titled = 0;
    let failed = 0;
    const step = Math.max(1, options.titleBatchSize ?? 16) * 4;
    for (let done = 0; done < ids.length; done += step) {
      const observations = await titles.readTitleSnapshots(ids.slice(done, done + step), scan.signal);
      for (const observation of observations) {
        if (observation.status === 'rejected') failed += 1;
        else if (observation.value.title !== undefined) titled += 1;
      }
      scan.onProgress?.({ done: Math.min(ids.length, done + step), total: ids.length });
    }
    return { sessions: ids.length, titled, failed };
  }

  return {
    runner,
    store,
    compression,
    listSessions: (signal) => recordDiscovery('listSessions', () => listSessions(signal), options.onDiscovery),
    listSessionsReport: (signal) => recordDiscovery('listSessionsReport', () => listSessionsReport(signal), options.onDiscovery),
    readTitleSnapshots: (ids, signal) => titleQuery.readTitleSnapshots(ids, signal) as Promise<SessionTitleObservation[]>,
    readSurface: (id, signal) => query.readSurface(id, signal),
    listCandidates: (agent, text, limit, signal) =>
      recordDiscovery('listCandidates', () => service.listCandidates(agent, text, limit, signal), options.onDiscovery),
    candidates: (agent, text, limit, signal) =>
      recordDiscovery('candidates', () => service.candidates(agent, text, signal, limit), options.onDiscovery),
    prepare: (agent, content, references, signal) => service.prepare(agent, content, references, signal),
    prepareSized: (agent, content, references, signal) => service.prepareSized(agent, content, references, signal),
    searchSessions: async (query, signal) => (await search.parts()).service.search(query, signal),
    buildSearchIndex: async (build) => (await search.parts()).service.build(build),
    searchIndexStatus: async (signal) => (await search.parts()).service.status(signal),
    clearSearchIndex: async (signal) => (await search.parts()).service.clear(signal),
    observeAllTitles,
    attachLive(session, attach) {
      if (attach?.gradual === undefined) liveLogs.track(session);
      else
        liveLogs.trackGradually(session, attach.gradual.sliceMs)?.catch(() => {
          // A log that cannot be encoded (SESSION_LOG_TOO_DEEP) is not kept; the capture that needs it reports why.
        });
      registry.attach(session);
    },
    detachLive(sessionId) {
      const session = registry.get(sessionId);
      if (session !== undefined) liveLogs.untrack(session);
      return registry.detach(sessionId);
    },
    sourceCache,
    corpusViewStats: () => view?.stats,
    onCorpusChange: (listener) => view?.onChange(listener),
    async close() {
      // Watches and the sweep timer first: nothing of the view outlives the engine.
      await view?.close();
      // A one-shot process leaves its cache entries behind for the next one.
      await sourceCache?.flush();
      await search.close();
      await runner.close();
    },
  };
}
