/**
 * The engine's part in a fleet (issue 29, README "Beyond one machine"), built only for the `postgres` corpus index
 * (so `pg` is loaded only then): the shared index over one lazily opened connection, the background publisher of the
 * engine's root — started now, told of every change the warm corpus view sees (the signal MCP's `resources/subscribe`
 * listens to; no second watcher), each changed artifact with its source-cache entry (scanned on the engine's pool) —
 * discovery over every published corpus, which waits for this engine's first publish attempt so its own sessions are
 * in its first fleet answer whenever the server allows, and the published sources another host's sessions are cited
 * from.
 */
import type { StoreLayout } from '../../../io/artifact-path.js';
import type { SessionId } from '../../../protocol/events.js';
import type { TaskRunner } from '../pool/task-runner.js';
import { BackgroundPublisher, type FleetPublishEvent, type PublishRetry } from '../fleet/background-publisher.js';
import type { PostgresCorpusIndexConfig } from '../fleet/corpus-index-config.js';
import type { PublishedSourceRecord, PublishSource, PublishSummary, SourceRecordRequest } from '../fleet/corpus-publisher.js';
import { FleetError, isFleetError } from '../fleet/fleet-error.js';
import type { FleetStatus } from '../fleet/fleet-status.js';
import type { LabelledRecord } from '../fleet/fleet-discovery.js';
import { createSharedCorpusIndex, type PublishedSession } from '../fleet/shared-corpus-index.js';
import { RemoteSourceRenderer } from '../fleet/remote-source-renderer.js';
import type { PublishedPrefixMatches } from '../fleet/published-id-prefix.js';
import type { Candidate, ReferenceSourceRenderer, ReferenceTarget } from '../reference/reference-types.js';
import type { LiveLogCapture } from '../../../protocol/wire/live-log-codec.js';
import type { SearchPage, SearchQuery } from '../../../protocol/search-types.js';
import type { QueryPlan } from '../../../workers/search/search-messages.js';
import { SearchError } from '../../../workers/search/search-error.js';
import type { SearchConfig } from '../search/search-config.js';
import { labelledSearchResult, nextPageCursor } from '../search/search-service.js';
import { scanSearchDocuments } from '../fleet/search-document-scan.js';
import { liveSearchSteps } from '../fleet/live-search-steps.js';

/** What the fleet part is built from. */
export interface EngineFleetInput {
  readonly config: PostgresCorpusIndexConfig;
  /** The root's layout. */
  readonly layout: StoreLayout;
  /** The engine's listing and titles (discovery's: the warm view's memory when the engine keeps one). */
  readonly source: Pick<PublishSource, 'listSessions' | 'readTitleSnapshots'>;
  /** The engine's pool: source entries are scanned there. */
  readonly runner: Pick<TaskRunner, 'run'>;
  /** The engine's live sessions with their titles, which discovery merges into every fleet answer. */
  readonly live: (signal?: AbortSignal) => Promise<readonly LabelledRecord[]>;
  /** Whether this engine publishes its root (`false`: it only asks, as `fleet status` does). */
  readonly publishes: boolean;
  /** The warm view's change signal, when the engine keeps one. */
  readonly onCorpusChange: (listener: () => void) => (() => void) | undefined;
  readonly onEvent?: (event: FleetPublishEvent) => void;
  readonly retry?: PublishRetry;
  /** The engine's search: its configuration, its planning of a query, and its live sessions' logs. */
  readonly search: EngineFleetSearchInput;
}

/** What fleet search needs of the engine's own search. */
export interface EngineFleetSearchInput {
  readonly config: SearchConfig;
  /** The search service's validation of a query into a plan and the key its cursors are bound to. */
  plan(query: SearchQuery): Promise<{ readonly plan: QueryPlan; readonly key: string }>;
  /** The live sessions attached to the engine, each with its title and a capture of its byte log. */
  live(signal?: AbortSignal): Promise<readonly LiveSearchLog[]>;
}

/** A live session as fleet search reads it. */
export interface LiveSearchLog {
  readonly record: LabelledRecord;
  readonly capture: LiveLogCapture;
}

/** The fleet part of one engine. */
export interface EngineFleet {
  /** The corpus id this engine's root is published under. */
  readonly corpusId: string;
  /**
   * Starts publishing (now, and after each change of the warm view). Called once the engine is built: an engine whose
   * construction fails never started anything (the connection opens on first use only).
   */
  start(): void;
  /** Discovery over every published corpus. */
  listCandidates(target: ReferenceTarget, query: string, limit: number, signal?: AbortSignal): Promise<Candidate[]>;
  /**
   * Full-text search over every published corpus with the engine's live sessions merged in (the local search
   * contract, docs/FLEET.md §7).
   * @throws SearchError as the local search validates; FleetError from the database
   */
  searchSessions(query: SearchQuery, signal?: AbortSignal): Promise<SearchPage>;
  /** Publishes what changed now and resolves when it is committed. */
  publishNow(): Promise<PublishSummary>;
  /** The index's status. */
  status(signal?: AbortSignal): Promise<FleetStatus>;
  /** A session another host published (its header and title), for naming it by id. */
  publishedSession(sessionId: SessionId, signal?: AbortSignal): Promise<PublishedSession | undefined>;
  /** The ids other hosts published that `typed` is a prefix of, for naming a session by an id prefix. */
  publishedSessionIds(typed: string, signal?: AbortSignal): Promise<PublishedPrefixMatches>;
  /** `local` with the sources other hosts published for the sessions it does not have (remote citation). */
  withRemoteSources(local: ReferenceSourceRenderer): ReferenceSourceRenderer;
  /** Stops publishing (the batch in flight commits or rolls back whole) and closes the connection. */
  close(): Promise<void>;
}

/**
 * The source-cache entry of one artifact at the revision the publisher saw, built on the pool by the same scan task
 * that builds the engine's own cache entries (one read of the prefix of that size; no rendering), so what another
 * host renders from it is what this host renders from its cache. `undefined` when that prefix is not a valid session
 * or cannot be read now (the artifact is published for discovery only, until it changes).
 */
async function scanSourceRecord(
  runner: Pick<TaskRunner, 'run'>,
  layout: StoreLayout,
  request: SourceRecordRequest,
  signal?: AbortSignal,
): Promise<PublishedSourceRecord | undefined> {
  const { revision } = request;
  const artifact = {
    sessionId: request.sessionId,
    path: request.path,
    root: layout.root,
    compression: layout.compression,
    capture: { dev: revision.dev, ino: revision.ino, size: revision.size },
  };
  // The cache's own key form (encoding, root, path, id): the entry names what it was built for.
  const key = [artifact.compression, artifact.root, artifact.path, artifact.sessionId].join('\u0000');
  try {
    const value = await runner.run(
      'readSource',
      { source: 'scan', artifact, ctimeNs: revision.ctimeNs, resume: null, entry: { key, base: null, render: null } },
      signal === undefined ? {} : { signal },
    );
    return value.status === 'entry' ? { key, bytes: value.bytes } : undefined;
  } catch (error) {
    signal?.throwIfAborted();
    if (isFleetError(error)) throw error;
    return undefined;
  }
}

/** Builds the fleet part; {@link EngineFleet.start} starts publishing. */
export function buildEngineFleet(input: EngineFleetInput): EngineFleet {
  const { layout, runner } = input;
  const source: PublishSource = {
    listSessions: (signal) => input.source.listSessions(signal),
    readTitleSnapshots: (ids, signal, listing) => input.source.readTitleSnapshots(ids, signal, listing),
    readSourceRecord: (request, signal) => scanSourceRecord(runner, layout, request, signal),
    // Documents are published while this host searches (a host that turned search off spends no scans on them).
    ...(input.search.config.enabled
      ? {
          search: {
            includeTools: input.search.config.includeTools,
            scan: (request, signal) => scanSearchDocuments(runner, layout, request, input.search.config.includeTools, signal),
          },
        }
      : {}),
  };
  const index = createSharedCorpusIndex(input.config, { source, layout });
  const publisher = input.publishes
    ? new BackgroundPublisher({
        publish: (signal, onProgress, onDiscoverable) => index.publish(signal, onProgress, onDiscoverable),
        ...(input.onEvent === undefined ? {} : { onEvent: input.onEvent }),
        ...(input.retry === undefined ? {} : { retry: input.retry }),
      })
    : undefined;
  let unsubscribe: (() => void) | undefined;
  return {
    corpusId: index.corpusId,
    start() {
      if (publisher === undefined || unsubscribe !== undefined) return;
      unsubscribe = input.onCorpusChange(() => publisher.changed()) ?? (() => undefined);
      publisher.start();
    },
    async listCandidates(target, query, limit, signal) {
      await publisher?.firstAttempt();
      return index.listCandidates(target, query, limit, signal, await input.live(signal));
    },
    async searchSessions(query, signal) {
      signal?.throwIfAborted();
      const { config } = input.search;
      if (!config.enabled) throw new SearchError('SEARCH_DISABLED', 'full-text search is turned off (search.enabled is false)');
      const { plan, key } = await input.search.plan(query);
      // As discovery: this engine's own sessions are in its first fleet answer whenever the server allows.
      await publisher?.firstAttempt();
      const live = (await input.search.live(signal)).map(({ record, capture }) => ({
        header: record.record.header,
        title: record.title,
        steps: liveSearchSteps(capture, config.includeTools),
      }));
      const page = await index.search({ plan, live }, signal);
      const results = page.results.map((result) => labelledSearchResult(result, result.title ?? result.sessionId));
      return page.more ? { results, nextCursor: nextPageCursor(plan, key) } : { results };
    },
    publishNow: () =>
      publisher === undefined
        ? Promise.reject(new FleetError('FLEET_NOT_CONFIGURED', 'this engine does not publish its root'))
        : publisher.publishNow(),
    status: (signal) => index.status(signal),
    publishedSession: (sessionId, signal) => index.readPublishedSession(sessionId, signal),
    publishedSessionIds: (typed, signal) => index.publishedIdsByPrefix(typed, signal),
    withRemoteSources: (local) => new RemoteSourceRenderer(local, (sessionId, signal) => index.readRemoteSource(sessionId, signal)),
    async close() {
      unsubscribe?.();
      await publisher?.close();
      await index.close();
    },
  };
}
