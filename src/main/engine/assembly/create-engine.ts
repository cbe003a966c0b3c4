/**
 * The in-process engine (ARCHITECTURE.md §2, §5): a JSONL store, the query layer, the worker pool and
 * the reference service wired so that every CPU stage over a log runs on the pool — `prepare` renders
 * sources with `readSource` tasks, discovery observes titles with `observeTitles` batches, and
 * `readSurface` inspects with `inspect` tasks — while this thread only orchestrates. Each part is built by its own
 * builder (`engine-discovery`, `engine-source-cache`, `engine-search`); this file composes them.
 */
import type { Compression } from '../../../protocol/storage-paths.js';
import { formatSessionReferenceMention } from '../../../protocol/uri/mention-formatter.js';
import { FleetError } from '../fleet/fleet-error.js';
import type { Candidate, MentionCandidate, ReferenceTarget } from '../reference/reference-types.js';
import { resolveCorpusViewConfig } from '../corpus/corpus-view-config.js';
import { InMemoryLiveRegistry } from '../corpus/live-registry.js';
import type { SessionTitleObservation } from '../corpus/session-query.js';
import { observedTitles } from '../corpus/discovery-label.js';
import { recordDiscovery } from '../corpus/warm-discovery.js';
import { LiveLogTracker } from '../live/live-log-tracker.js';
import { DeferredTaskRunner } from '../pool/deferred-task-runner.js';
import { resolvePoolConfig } from '../pool/pool-config.js';
import type { SessionReferenceService } from '../reference/session-reference-service.js';
import { resolveReferenceConfig } from '../reference/reference-config.js';
import { detectCompression } from '../store/detect-compression.js';
import { JsonlSessionStore } from '../store/jsonl-store.js';
import { DEFAULT_COMPRESSION } from '../store/store-config.js';
import { buildEngineDiscovery } from './engine-discovery.js';
import { buildEngineSearch } from './engine-search.js';
import { buildEngineSourceCache } from './engine-source-cache.js';
import type { LocalSessionEngine, LocalSessionEngineOptions } from './local-engine-types.js';
import { observeAllTitles } from './title-scan.js';
import { asForegroundCall } from '../../../io/foreground-calls.js';

/** Candidates with their mentions, as the reference service's `candidates` gives them. */
function withMentions(found: readonly Candidate[]): MentionCandidate[] {
  return found.map((candidate) => ({
    ...candidate,
    mention: formatSessionReferenceMention({ sessionId: candidate.sessionId, label: candidate.label }),
  }));
}

export type { LocalSessionEngine, LocalSessionEngineOptions } from './local-engine-types.js';

/**
 * Builds an engine in this thread. Validates every configuration first (store, pool, query and
 * reference limits throw their typed `*_INVALID_CONFIG` errors); no worker thread starts before the
 * first task.
 */
export async function createEngine(options: LocalSessionEngineOptions = {}): Promise<LocalSessionEngine> {
  const corpus = resolveCorpusViewConfig(options.corpus);
  const poolConfig = { size: options.poolSize ?? null, abortGraceMs: options.abortGraceMs ?? null };
  resolvePoolConfig(poolConfig);
  // Only the runner this engine uses is loaded, and only by its first task: the in-thread one imports every task
  // module, the pool piscina; a listing answered from the title index runs none.
  const runner = new DeferredTaskRunner(async () =>
    options.workers === false
      ? new (await import('../pool/in-thread-runner.js')).InThreadTaskRunner(poolConfig)
      : new (await import('../pool/worker-pool.js')).WorkerPool(poolConfig),
  );
  // The reference limits are validated now; the service (the renderer, the prompt assembly) loads with its first call.
  const referenceConfig = resolveReferenceConfig(options.reference);
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
  // Search: validated now, its worker started by the first search only.
  const { search, config: searchConfig } = await buildEngineSearch({ options, store, discovery, registry, liveLogs });
  // The fleet (issue 29): only for the postgres backend over a root, so `pg` loads only then.
  const corpusIndex = options.corpusIndex;
  const fleet =
    corpusIndex?.backend === 'postgres' && store !== undefined
      ? (await import('./engine-fleet.js')).buildEngineFleet({
          config: corpusIndex,
          layout: store.config,
          source: {
            listSessions: (signal) => discovery.listSessions(signal),
            // The warm view answers from memory; without one, the titles are read against the publish's own listing.
            readTitleSnapshots: (ids, signal, listing) =>
              (discovery.warm === undefined
                ? discovery.titles.readTitleSnapshots(ids, signal, listing)
                : discovery.warmQuery.readTitleSnapshots(ids, signal)) as Promise<SessionTitleObservation[]>,
          },
          publishes: options.fleetPublish ?? true,
          runner,
          live: async (signal) => {
            const sessions = [...registry.list()];
            if (sessions.length === 0) return [];
            const ids = sessions.map((session) => session.header.id);
            const titles = observedTitles(await discovery.warmQuery.readTitleSnapshots(ids, signal));
            return sessions.map((session) => ({
              record: { header: session.header, live: true, persisted: false },
              title: titles.get(session.header.id),
            }));
          },
          onCorpusChange: (listener) => view?.onChange(listener),
          search: {
            config: searchConfig,
            // The local service's validation and cursor binding (its SQLite worker is not started by planning).
            plan: async (query) => (await search.parts()).service.plan(query),
            live: async (signal) => {
              const sessions = [...registry.list()];
              if (sessions.length === 0) return [];
              const titles = observedTitles(
                await discovery.warmQuery.readTitleSnapshots(
                  sessions.map((session) => session.header.id),
                  signal,
                ),
              );
              const logs = [];
              for (const session of sessions) {
                try {
                  logs.push({
                    record: { record: { header: session.header, live: true, persisted: false }, title: titles.get(session.header.id) },
                    capture: liveLogs.snapshot(session).capture,
                  });
                } catch {
                  // SESSION_LOG_TOO_DEEP: this session's log cannot be encoded, so it is not searched (as locally).
                }
              }
              return logs;
            },
          },
          ...(options.onFleetEvent === undefined ? {} : { onEvent: options.onFleetEvent }),
          ...(options.fleetRetry === undefined ? {} : { retry: options.fleetRetry }),
        })
      : undefined;
  let loadingService: Promise<SessionReferenceService> | undefined;
  const referenceService = (): Promise<SessionReferenceService> => {
    loadingService ??= Promise.all([import('../pool/pool-source-renderer.js'), import('../reference/session-reference-service.js')]).then(
      ([{ PoolSourceRenderer }, { SessionReferenceService }]) => {
        const poolRenderer = new PoolSourceRenderer({
          runner,
          registry,
          liveLogs,
          damagedLogErrors: query.config.damagedLogErrors,
          // A long-lived engine's warm view answers "is it listed" without a listing per citation.
          ...(discovery.keptListing === undefined ? {} : { keptListing: discovery.keptListing }),
          ...(store === undefined ? {} : { storage: store }),
          ...(sourceCache === undefined ? {} : { sourceCache }),
          ...(options.onSourceServed === undefined ? {} : { onSourceServed: options.onSourceServed }),
        });
        return new SessionReferenceService({
          sessionQuery: discovery.discoveryQuery,
          // A session this engine does not have may be cited from the source another host published.
          renderer: fleet === undefined ? poolRenderer : fleet.withRemoteSources(poolRenderer),
          config: referenceConfig,
        });
      },
    );
    return loadingService;
  };
  const discovered = options.onDiscovery;
  const notShared = (): Promise<never> =>
    Promise.reject(new FleetError('FLEET_NOT_CONFIGURED', 'the corpus index is not shared (set corpusIndex.backend to "postgres")'));
  // Discovery answers over every published corpus when the index is shared; the local service's limit rules first.
  const listCandidates = (agent: ReferenceTarget, text = '', limit?: number, signal?: AbortSignal): Promise<Candidate[]> =>
    fleet === undefined
      ? referenceService().then((service) => service.listCandidates(agent, text, limit, signal))
      : fleet.listCandidates(agent, text, limit ?? referenceConfig.candidateLimit, signal);

  // Everything that validates is built: publishing may start.
  fleet?.start();
  return {
    runner,
    store,
    compression,
    listSessions: (signal) => asForegroundCall(() => recordDiscovery('listSessions', () => discovery.listSessions(signal), discovered)),
    listSessionsReport: (signal) =>
      asForegroundCall(() => recordDiscovery('listSessionsReport', () => discovery.listSessionsReport(signal), discovered)),
    readTitleSnapshots: (ids, signal) =>
      asForegroundCall(() => discovery.titleQuery.readTitleSnapshots(ids, signal) as Promise<SessionTitleObservation[]>),
    readListedTitleSnapshots: (ids, signal) =>
      asForegroundCall(() => discovery.warmQuery.readTitleSnapshots(ids, signal) as Promise<SessionTitleObservation[]>),
    listedArtifactRevision: (id) => discovery.warm?.listedArtifactRevision(id),
    readSurface: (id, signal) => asForegroundCall(() => query.readSurface(id, signal)),
    listCandidates: (agent, text, limit, signal) =>
      asForegroundCall(() => recordDiscovery('listCandidates', () => listCandidates(agent, text, limit, signal), discovered)),
    candidates: (agent, text, limit, signal) =>
      asForegroundCall(() =>
        recordDiscovery(
          'candidates',
          async () =>
            fleet === undefined
              ? (await referenceService()).candidates(agent, text, signal, limit)
              : withMentions(await listCandidates(agent, text, limit, signal)),
          discovered,
        ),
      ),
    prepare: (agent, content, references, signal) =>
      asForegroundCall(async () => (await referenceService()).prepare(agent, content, references, signal)),
    prepareSized: (agent, content, references, signal) =>
      asForegroundCall(async () => (await referenceService()).prepareSized(agent, content, references, signal)),
    // Search answers over every published corpus when the index is shared.
    searchSessions: (searched, signal) =>
      asForegroundCall(async () =>
        fleet === undefined ? (await search.parts()).service.search(searched, signal) : fleet.searchSessions(searched, signal),
      ),
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
    fleetCorpusId: fleet?.corpusId,
    publishToFleet: () => fleet?.publishNow() ?? notShared(),
    fleetStatus: (signal) => fleet?.status(signal) ?? notShared(),
    publishedSession: async (sessionId, signal) => fleet?.publishedSession(sessionId, signal),
    publishedSessionIds: async (typed, signal) => (fleet === undefined ? { ids: [], total: 0 } : fleet.publishedSessionIds(typed, signal)),
    sourceCache,
    corpusViewStats: () => view?.stats,
    onCorpusChange: (listener) => view?.onChange(listener),
    async close() {
      // The publisher first, while the listing it reads still works: its open batch commits or rolls back whole.
      await fleet?.close();
      // Watches and the sweep timer first: nothing of the view outlives the engine.
      await view?.close();
      // A one-shot process leaves its cache entries behind for the next one.
      await sourceCache?.flush();
      await search.close();
      await runner.close();
      // Last: the search build and the view may have observed titles; their write ends before close() resolves.
      await store?.settleTitleIndex();
    },
  };
}
