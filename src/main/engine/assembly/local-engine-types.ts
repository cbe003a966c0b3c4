/**
 * The in-process engine's types: what `createEngine` returns (the shared API plus what cannot cross a thread) and the
 * options it takes.
 */
import type { FileRevision } from '../../../io/file-revision.js';
import type { SessionId } from '../../../protocol/events.js';
import type { ListingProblem } from '../../../protocol/listing-problem.js';
import type { Compression } from '../../../protocol/storage-paths.js';
import type { SyncSummary } from '../../../workers/search/search-messages.js';
import type { SourceCache } from '../cache/source-cache.js';
import type { CorpusViewStats } from '../corpus/corpus-view.js';
import type { SessionTitleObservation } from '../corpus/session-query.js';
import type { LiveSession } from '../corpus/live-registry.js';
import type { DiscoveryReport } from '../corpus/warm-discovery.js';
import type { FleetPublishEvent, PublishRetry } from '../fleet/background-publisher.js';
import type { CorpusIndexConfig } from '../fleet/corpus-index-config.js';
import type { PublishSummary } from '../fleet/corpus-publisher.js';
import type { FleetStatus } from '../fleet/fleet-status.js';
import type { PublishedSession } from '../fleet/shared-corpus-index.js';
import type { PublishedPrefixMatches } from '../fleet/published-id-prefix.js';
import type { SourceServedReport } from '../pool/pool-source-renderer.js';
import type { TaskRunner } from '../pool/task-runner.js';
import type { SearchBuildOptions, SearchIndexClearResult, SearchIndexStatus } from '../search/search-service.js';
import type { JsonlSessionStore, JsonlSessionStoreOptions } from '../store/jsonl-store.js';
import type { SessionEngine, SessionEngineOptions } from './engine-types.js';

/** The in-process engine: the shared API plus live-session attachment, which needs the host's objects. */
export interface LocalSessionEngine extends SessionEngine {
  /** The task runner (the pool, or the in-thread fallback). */
  readonly runner: TaskRunner;
  /**
   * The titles discovery shows (issue 28 item 2): `readTitleSnapshots` through the warm corpus view when the engine
   * has one — an observation is kept per artifact check of the view, so only a changed session is read again, and no
   * call lists the root again — else exactly `readTitleSnapshots`. For listings shown to a person (the Web page's
   * sessions list); an exact read of one session stays `readTitleSnapshots`.
   */
  readListedTitleSnapshots(sessionIds: readonly SessionId[], signal?: AbortSignal): Promise<SessionTitleObservation[]>;
  /**
   * The revision the warm corpus view recorded for listed session `id`'s log in the listing the latest discovery
   * call was answered from (`undefined`: no warm view, not listed, or its log not read): a listing's sizes and
   * revision stamps without a `stat` per session, current within the view's staleness bound as the listing is.
   */
  listedArtifactRevision(sessionId: string): FileRevision | undefined;
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
  /** The corpus id this engine publishes its root under (host + root), or `undefined` when its index is not shared. */
  readonly fleetCorpusId: string | undefined;
  /**
   * Publishes what changed in the root into the shared corpus index now (the background publisher does it by itself
   * at start and after each change) and resolves when it is committed.
   * @throws FleetError `FLEET_NOT_CONFIGURED` for an engine whose index is not shared; the database's `FLEET_*` codes
   */
  publishToFleet(): Promise<PublishSummary>;
  /**
   * A session only another host has, as it published it (header and latest title): how a face names a remote session
   * by its id. `undefined` when no other host published it, or the index is not shared.
   * @throws FleetError the database's `FLEET_*` codes
   */
  publishedSession(sessionId: SessionId, signal?: AbortSignal): Promise<PublishedSession | undefined>;
  /**
   * The ids other hosts published that `typed` is a prefix of (directly, or after `session-`): the first 11 in
   * code-point order, and how many in all. How a face names a remote session by an id prefix. None when the index is
   * not shared.
   * @throws FleetError the database's `FLEET_*` codes
   */
  publishedSessionIds(typed: string, signal?: AbortSignal): Promise<PublishedPrefixMatches>;
  /**
   * The shared corpus index's corpora, hosts, lag and size (`sessionctx fleet status`).
   * @throws FleetError `FLEET_NOT_CONFIGURED` for an engine whose index is not shared; the database's `FLEET_*` codes
   */
  fleetStatus(signal?: AbortSignal): Promise<FleetStatus>;
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
  /**
   * The corpus index (issue 29), as resolved by `resolveCorpusIndexConfig` (the composition's `corpusIndex`): with
   * `postgres`, the engine publishes its root in the background and discovery (`listCandidates`, `candidates`)
   * answers over every published corpus; default `sqlite` (nothing shared).
   */
  readonly corpusIndex?: CorpusIndexConfig;
  /** Whether a `postgres` engine publishes its root (default true; `fleet status` only asks). */
  readonly fleetPublish?: boolean;
  /** The background publisher's backoff after a failure (default 1 s doubling to 60 s). */
  readonly fleetRetry?: PublishRetry;
  /** Progress, publishes and failures (with the retry's wait) of the background publisher. */
  readonly onFleetEvent?: (event: FleetPublishEvent) => void;
}
