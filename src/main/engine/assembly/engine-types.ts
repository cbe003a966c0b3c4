/**
 * The engine facade (ARCHITECTURE.md §2 "comlink"): the async API a host or the CLI uses, the same
 * whether the engine runs in-process (`createEngine`) or on a dedicated thread (`createEngineThread`).
 */
import type { ContentBlock, SessionId, SessionSurfaceSnapshot } from '../../../protocol/events.js';
import type { Compression } from '../../../protocol/storage-paths.js';
import type { SessionQueryConfigInput } from '../corpus/query-config.js';
import type { CorpusViewConfigInput } from '../corpus/corpus-view-config.js';
import type { SessionListReport, SessionRecord, SessionTitleObservation } from '../corpus/session-query.js';
import type { SessionReferenceConfigInput } from '../reference/reference-config.js';
import type { SourceCacheConfigInput } from '../cache/source-cache-config.js';
import type { Candidate, MentionCandidate, PreparedReferences, ReferenceTarget, SizedPreparation } from '../reference/reference-types.js';
import type { SearchPage, SearchQuery } from '../../../protocol/search-types.js';
import type { SearchConfigInput } from '../search/search-config.js';

/** How an engine is built. Plain data, so the same options can be sent to an engine thread. */
export interface SessionEngineOptions {
  /** The JSONL session root; without it the engine serves live sessions only. */
  readonly root?: string;
  /**
   * The root's encoding. Default: detected from the root (the encoding of the first artifact found, as the
   * CLI does), or `zstd` (dsh's default) for an empty or missing root.
   */
  readonly compression?: Compression;
  /** `false` runs every stage on the engine's own thread (the `--no-workers` fallback). Default true. */
  readonly workers?: boolean;
  /** Worker threads; default `min(3, cores)`, bounded by the machine (pool-config's `maxPoolSize()`). */
  readonly poolSize?: number;
  /** Reference limits (SESSION-REFERENCE.md §3). */
  readonly reference?: SessionReferenceConfigInput;
  /** Query layer limits (SESSION-LOG.md §10.2). */
  readonly query?: SessionQueryConfigInput;
  /**
   * Where discovery's title observations come from: `'index'` (default) reads them through the query layer
   * from the store, which answers from its persistent title index (SESSION-LOG.md §10.7: an unchanged log
   * costs one `stat`, a grown one only its new bytes); `'pool'` batches full inspections into `observeTitles`
   * tasks on the workers (every query re-reads every log — for measurements and for stores without an index).
   */
  readonly titles?: 'pool' | 'index';
  /** Files per `observeTitles` task (default 16). */
  readonly titleBatchSize?: number;
  /**
   * How long an aborted task may take to acknowledge before its worker is terminated and replaced (default 1000 ms),
   * so a stalled stage never costs the pool a thread.
   */
  readonly abortGraceMs?: number;
  /**
   * The incremental source cache of `prepare()` (issue 15): `false` turns it off; `{maxBytes, directory}` bounds its
   * memory (default 64 MiB of estimated entry bytes) and names where its files live (default
   * `<user cache directory>/source-cache`, `null` for memory only). Results are byte-identical either way.
   */
  readonly sourceCache?: SourceCacheConfigInput;
  /**
   * The warm corpus view of discovery (`listCandidates`, `candidates`, `listSessions`, `listSessionsReport`):
   * `watch` (default `true`) keeps the root's listing, headers and title observations in memory, kept current by
   * file-system notifications and a `stat` sweep; `revalidateMs` (default 30,000) bounds how stale an answer can be
   * when a notification is lost. `{ watch: false }` lists and observes from the file system on every call (the
   * one-shot CLI commands). Exact reads (`readSurface`, `prepare`, `readTitleSnapshots`) always read their artifact;
   * `prepare`, `readSurface` and `readTitleSnapshots` take from the view whether an id is listed (README "Warm
   * discovery in a long-lived engine").
   * The view needs a tolerant listing and `titles: 'index'`; otherwise discovery is cold as before.
   */
  readonly corpus?: CorpusViewConfigInput;
  /**
   * Full-text search (issue 17, docs/SEARCH.md): `enabled`, `includeTools`, `defaultLimit`, `maxLimit`,
   * `hitsPerSession`, `snippetLength`, `busyTimeoutMs`, `directory` (default `<user cache directory>/search`, `null`
   * in memory). Validated when the engine is built (`SEARCH_INVALID_CONFIG`).
   */
  readonly search?: SearchConfigInput;
}

/** Progress of a long job, reported through a callback (a `comlink.proxy` across threads). */
export interface EngineProgress {
  readonly done: number;
  readonly total: number;
}

/** Options of {@link SessionEngine.observeAllTitles}. */
export interface ObserveAllTitlesOptions {
  readonly signal?: AbortSignal;
  readonly onProgress?: (progress: EngineProgress) => void;
}

/** Summary of {@link SessionEngine.observeAllTitles}. */
export interface TitleScanSummary {
  readonly sessions: number;
  readonly titled: number;
  readonly failed: number;
}

/** The engine's async API. */
export interface SessionEngine {
  /** Every known session (SESSION-LOG.md §10.3). */
  listSessions(signal?: AbortSignal): Promise<SessionRecord[]>;
  /** {@link listSessions} with what the tolerant listing skipped (damaged artifacts, with path and code). */
  listSessionsReport(signal?: AbortSignal): Promise<SessionListReport>;
  /** The current surface of one session (§10.4). */
  readSurface(sessionId: SessionId, signal?: AbortSignal): Promise<SessionSurfaceSnapshot>;
  /** Title observations of sessions, in input order, one per id (SESSION-LOG.md §10.5). */
  readTitleSnapshots(sessionIds: readonly SessionId[], signal?: AbortSignal): Promise<SessionTitleObservation[]>;
  /** Discovery (SESSION-REFERENCE.md §7.3). */
  listCandidates(agent: ReferenceTarget, query?: string, limit?: number, signal?: AbortSignal): Promise<Candidate[]>;
  /**
   * The host face of discovery (§7.4): {@link listCandidates} with each candidate's mention. Its arguments are in
   * {@link listCandidates}' order, the signal last like every read of the engine (the service's own `candidates`
   * keeps dsh's host signature, `(agent, query, signal)`).
   */
  candidates(agent: ReferenceTarget, query: string, limit?: number, signal?: AbortSignal): Promise<MentionCandidate[]>;
  /** Prepares the context for one message (§8). */
  prepare(
    agent: ReferenceTarget,
    content: readonly ContentBlock[],
    references: readonly unknown[],
    signal?: AbortSignal,
  ): Promise<PreparedReferences>;
  /** {@link prepare} with each source's rendered size (the Web preview's bars), the prepared result unchanged. */
  prepareSized(
    agent: ReferenceTarget,
    content: readonly ContentBlock[],
    references: readonly unknown[],
    signal?: AbortSignal,
  ): Promise<SizedPreparation>;
  /**
   * Full-text search over the current conversation of every persisted session (issue 17, docs/SEARCH.md): the
   * root's index is brought up to date first (incremental per log), off this thread. Rejects with a `SearchError`
   * code (`SEARCH_UNAVAILABLE`, `SEARCH_INVALID_QUERY`, …) or, when `signal` aborts, at once with `signal.reason`.
   */
  searchSessions(query: SearchQuery, signal?: AbortSignal): Promise<SearchPage>;
  /** Observes the title of every listed session in batches, reporting progress (the CLI's `index`). */
  observeAllTitles(options?: ObserveAllTitlesOptions): Promise<TitleScanSummary>;
  /** Closes the pool (and the engine thread). Idempotent. */
  close(): Promise<void>;
}
