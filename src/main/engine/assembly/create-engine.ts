/**
 * The in-process engine (ARCHITECTURE.md §2, §5): a JSONL store, the query layer, the worker pool and
 * the reference service wired so that every CPU stage over a log runs on the pool — `prepare` renders
 * sources with `readSource` tasks, discovery observes titles with `observeTitles` batches, and
 * `readSurface` inspects with `inspect` tasks — while this thread only orchestrates. Each part is built by its own
 * builder (`engine-discovery`, `engine-source-cache`, `engine-search`); this file composes them.
 */
import type { Compression } from '../../../protocol/storage-paths.js';
import { resolveCorpusViewConfig } from '../corpus/corpus-view-config.js';
import { InMemoryLiveRegistry } from '../corpus/live-registry.js';
import type { SessionTitleObservation } from '../corpus/session-query.js';
import { recordDiscovery } from '../corpus/warm-discovery.js';
import { LiveLogTracker } from '../live/live-log-tracker.js';
import { PoolSourceRenderer } from '../pool/pool-source-renderer.js';
import type { TaskRunner } from '../pool/task-runner.js';
import { SessionReferenceService } from '../reference/session-reference-service.js';
import { detectCompression } from '../store/detect-compression.js';
import { JsonlSessionStore } from '../store/jsonl-store.js';
import { DEFAULT_COMPRESSION } from '../store/store-config.js';
import { buildEngineDiscovery } from './engine-discovery.js';
import { buildEngineSearch } from './engine-search.js';
import { buildEngineSourceCache } from './engine-source-cache.js';
import type { LocalSessionEngine, LocalSessionEngineOptions } from './local-engine-types.js';
import { observeAllTitles } from './title-scan.js';

export type { LocalSessionEngine, LocalSessionEngineOptions } from './local-engine-types.js';

/**
 * Builds an engine in this thread. Validates every configuration first (store, pool, query and
 * reference limits throw their typed `*_INVALID_CONFIG` errors); no worker thread starts before the
 * first task.
 */
export async function createEngine(options: LocalSessionEngineOptions = {}): Promise<LocalSessionEngine> {
  const corpus = resolveCorpusViewConfig(options.corpus);
  const poolConfig = { size: options.poolSize ?? null, abortGraceMs: options.abortGraceMs ?? null };
  // Only the runner this engine uses is loaded: the in-thread one imports every task module, the pool piscina.
  const runner: TaskRunner =
    options.workers === false
      ? new (await import('../pool/in-thread-runner.js')).InThreadTaskRunner(poolConfig)
      : new (await import('../pool/worker-pool.js')).WorkerPool(poolConfig);
  // Defaults are resolved here, once: the encoding is the root's own unless the caller names one.
  const compression: Compression =
    options.compression ?? (options.root === undefined ? DEFAULT_COMPRESSION : await detectCompression(options.root));
  const store =
    options.root === undefined ? undefined : await JsonlSessionStore.open({ root: options.root, compression, ...(options.store ?? {}) });
  const registry = new InMemoryLiveRegistry();
  const liveLogs = new LiveLogTracker();
  const discovery = buildEngineDiscovery({ options, corpus, runner, registry, store });
  const { query, view } = discovery;
  const sourceCache = buildEngineSourceCache(options, store);
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
    sessionQuery: discovery.discoveryQuery,
    renderer,
    ...(options.reference === undefined ? {} : { config: options.reference }),
  });
  // Search: validated now, its worker started by the first search only.
  const { search } = await buildEngineSearch({ options, store, discovery, registry, liveLogs });
  const discovered = options.onDiscovery;

  return {
    runner,
    store,
    compression,
    listSessions: (signal) => recordDiscovery('listSessions', () => discovery.listSessions(signal), discovered),
    listSessionsReport: (signal) => recordDiscovery('listSessionsReport', () => discovery.listSessionsReport(signal), discovered),
    readTitleSnapshots: (ids, signal) => discovery.titleQuery.readTitleSnapshots(ids, signal) as Promise<SessionTitleObservation[]>,
    readListedTitleSnapshots: (ids, signal) => discovery.warmQuery.readTitleSnapshots(ids, signal) as Promise<SessionTitleObservation[]>,
    readSurface: (id, signal) => query.readSurface(id, signal),
    listCandidates: (agent, text, limit, signal) =>
      recordDiscovery('listCandidates', () => service.listCandidates(agent, text, limit, signal), discovered),
    candidates: (agent, text, limit, signal) =>
      recordDiscovery('candidates', () => service.candidates(agent, text, signal, limit), discovered),
    prepare: (agent, content, references, signal) => service.prepare(agent, content, references, signal),
    prepareSized: (agent, content, references, signal) => service.prepareSized(agent, content, references, signal),
    searchSessions: async (searched, signal) => (await search.parts()).service.search(searched, signal),
    buildSearchIndex: async (build) => (await search.parts()).service.build(build),
    searchIndexStatus: async (signal) => (await search.parts()).service.status(signal),
    clearSearchIndex: async (signal) => (await search.parts()).service.clear(signal),
    observeAllTitles: (scan) => observeAllTitles(discovery, options.titleBatchSize, scan),
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
