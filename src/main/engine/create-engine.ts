/**
 * The in-process engine (ARCHITECTURE.md §2, §5): a JSONL store, the query layer, the worker pool and
 * the reference service wired so that every CPU stage over a log runs on the pool — `prepare` renders
 * sources with `readSource` tasks, discovery observes titles with `observeTitles` batches, and
 * `readSurface` inspects with `inspect` tasks — while this thread only orchestrates.
 */
import type { SessionId } from '../../protocol/events.js';
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
import type { Compression } from '../../protocol/storage-paths.js';
import type { SessionListReport, SessionRecord, SessionTitleObservation } from '../corpus/session-query.js';
import type { ListingProblem } from '../store/listing-problem.js';
import { ReportingSessionQuery } from '../corpus/reporting-session-query.js';
import type { ObserveAllTitlesOptions, SessionEngine, SessionEngineOptions, TitleScanSummary } from './engine-types.js';

/** The in-process engine: the shared API plus live-session attachment, which needs the host's objects. */
export interface LocalSessionEngine extends SessionEngine {
  /** The task runner (the pool, or the in-thread fallback). */
  readonly runner: TaskRunner;
  /** The JSONL store over the root (`undefined` without a root): the writers (`dcp`, `script run`) append through it. */
  readonly store: JsonlSessionStore | undefined;
  /** The root's encoding, as given or detected. */
  readonly compression: Compression;
  /** Attaches a live session; its byte log is kept from now on, so captures stay O(1). */
  attachLive(session: LiveSession): void;
  /** Detaches a live session. */
  detachLive(sessionId: SessionId): boolean;
  /** The source cache of `prepare()`, or `undefined` when it is off (its `stats` are the cache's metrics). */
  readonly sourceCache: SourceCache | undefined;
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
}

/**
 * Builds an engine in this thread. Validates every configuration first (store, pool, query and
 * reference limits throw their typed `*_INVALID_CONFIG` errors); no worker thread starts before the
 * first task.
 */
export async function createEngine(options: LocalSessionEngineOptions = {}): Promise<LocalSessionEngine> {
  const poolConfig = { size: options.poolSize ?? null, abortGraceMs: options.abortGraceMs ?? null };
  const runner: TaskRunner = options.workers === false ? new InThreadTaskRunner(poolConfig) : new WorkerPool(poolConfig);
  // Defaults are resolved here, once: the encoding is the root's own unless the caller names one.
  const compression: Compression = options.compression ?? (options.root === undefined ? DEFAULT_COMPRESSION : await detectCompression(options.root));
  const store = options.root === undefined ? undefined : await JsonlSessionStore.open({ root: options.root, compression, ...(options.store ?? {}) });
  const registry = new InMemoryLiveRegistry();
  const liveLogs = new LiveLogTracker();
  const storage = store === undefined ? undefined : new PooledSessionStorage(store, runner);
  const query = new SessionQuery({ registry, ...(storage === undefined ? {} : { storage }), ...(options.query === undefined ? {} : { config: options.query }) });
  const titles = (options.titles ?? 'index') === 'index'
    ? new SessionQuery({ registry, ...(store === undefined ? {} : { storage: store }), ...(options.query === undefined ? {} : { config: options.query }) })
    : new PoolTitleSnapshots({ runner, registry, ...(store === undefined ? {} : { storage: store }), ...(options.titleBatchSize === undefined ? {} : { batchSize: options.titleBatchSize }) });
  const reportedProblems = new Set<string>();
  async function listSessionsReport(signal?: AbortSignal): Promise<SessionListReport> {
    const report = await query.listSessionsReport(signal);
    for (const problem of report.problems) {
      const key = `${problem.code}\u0000${problem.path}`;
      if (reportedProblems.has(key)) continue;
      reportedProblems.add(key);
      options.onListingProblem?.(problem);
    }
    return report;
  }
  const listSessions = async (signal?: AbortSignal): Promise<SessionRecord[]> => (await listSessionsReport(signal)).records;
  const sessionQuery: ReferenceSessionQuery = {
    listSessions,
    readSurface: (id, signal) => query.readSurface(id, signal),
    readTitleSnapshots: (ids, signal) => titles.readTitleSnapshots(ids, signal),
  };
  const discoveryQuery: ReferenceSessionQuery = options.onTitleFailure === undefined ? sessionQuery : new ReportingSessionQuery(sessionQuery, options.onTitleFailure);
  // The source cache lives beside the title index: in the store's cache directory when one is named.
  const storeCache = options.store?.cacheDirectory;
  const sourceCacheInput = storeCache === undefined || options.sourceCache === false || options.sourceCache?.directory !== undefined
    ? options.sourceCache
    : { ...(options.sourceCache ?? {}), directory: join(storeCache, SOURCE_CACHE_FOLDER) };
  const cacheConfig = resolveSourceCacheConfig(sourceCacheInput, options.store?.env ?? process.env);
  const sourceCache = cacheConfig.enabled && store !== undefined ? new SourceCache(cacheConfig) : undefined;
  const renderer = new PoolSourceRenderer({
    runner,
    registry,
    liveLogs,
    ...(store === undefined ? {} : { storage: store }),
    ...(sourceCache === undefined ? {} : { sourceCache }),
    ...(options.onSourceServed === undefined ? {} : { onSourceServed: options.onSourceServed }),
  });
  const service = new SessionReferenceService({ sessionQuery: discoveryQuery, renderer, ...(options.reference === undefined ? {} : { config: options.reference }) });

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
    listSessions,
    listSessionsReport,
    readTitleSnapshots: (ids, signal) => discoveryQuery.readTitleSnapshots(ids, signal) as Promise<SessionTitleObservation[]>,
    readSurface: (id, signal) => query.readSurface(id, signal),
    listCandidates: (agent, text, limit, signal) => service.listCandidates(agent, text, limit, signal),
    candidates: (agent, text, limit, signal) => service.candidates(agent, text, signal, limit),
    prepare: (agent, content, references, signal) => service.prepare(agent, content, references, signal),
    observeAllTitles,
    attachLive(session) {
      liveLogs.track(session);
      registry.attach(session);
    },
    detachLive(sessionId) {
      const session = registry.get(sessionId);
      if (session !== undefined) liveLogs.untrack(session);
      return registry.detach(sessionId);
    },
    sourceCache,
    async close() {
      // A one-shot process leaves its cache entries behind for the next one.
      await sourceCache?.flush();
      await runner.close();
    },
  };
}
