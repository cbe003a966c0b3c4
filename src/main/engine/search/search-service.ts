/**
 * The search service behind `engine.searchSessions()` (issue 17): validates a {@link SearchQuery} into a plan with
 * the `search` configuration's defaults, brings the root's index up to date with the store's listing (the backend
 * does the per-artifact work off this thread), runs the query and labels each session as discovery does — its title
 * (else its id), escaped — with the canonical mention that cites it, so a hit becomes a reference in one step.
 */
import { createHash } from 'node:crypto';
import type { SessionHeader, SessionId } from '../../../protocol/events.js';
import { describeSearchRequestProblem, parseSearchRequest } from '../../../protocol/search-request.js';
import {
  SEARCH_ROLES,
  type SearchPage,
  type SearchQuery,
  type SearchRole,
  type SearchSessionResult,
} from '../../../protocol/search-types.js';
import type { Compression } from '../../../protocol/storage-paths.js';
import { escapeDisplayText } from '../../../protocol/uri/display-escape.js';
import { formatSessionReferenceMention } from '../../../protocol/uri/mention-formatter.js';
import { SearchError } from '../../../workers/search/search-error.js';
import type { LiveLogCapture } from '../../../protocol/wire/live-log-codec.js';
import type {
  IndexClearResult,
  IndexFileStatus,
  QueryPlan,
  SyncLive,
  SyncSummary,
  WorkerSessionResult,
} from '../../../workers/search/search-messages.js';
import { SEARCH_SCHEMA_VERSION } from '../../../workers/search/search-database.js';
import { CJK_PATTERN } from '../../../workers/search/search-sync.js';
import { realPathOf } from '../config/cache-location.js';
import type { SessionTitleObservation } from '../corpus/session-query.js';
import type { CorpusChangeReport } from '../corpus/warm-discovery.js';
import type { SearchConfig } from './search-config.js';
import type { SearchIndex } from './search-index.js';
import { observedTitles } from '../corpus/discovery-label.js';
import { decodeOpaqueCursor, encodeOpaqueCursor } from '../../../protocol/opaque-cursor.js';

/**
 * One ranked session as every face gets it: its label (`labelText`, the title or else the id) and cwd escaped as
 * discovery escapes them, and the canonical mention that cites it — for the local index's hits and the fleet's alike.
 */
export function labelledSearchResult(result: WorkerSessionResult, labelText: string): SearchSessionResult {
  const label = escapeDisplayText(labelText);
  return {
    sessionId: result.sessionId,
    label,
    ...(result.cwd === null ? {} : { cwd: escapeDisplayText(result.cwd) }),
    createdAt: result.createdAt,
    mention: formatSessionReferenceMention({ sessionId: result.sessionId, label }),
    score: result.score,
    hits: result.hits,
  };
}

/** What the service reads of the store: its root, encoding and listing. */
export interface SearchStore {
  readonly config: { readonly root: string; readonly compression: Compression };
  list(signal?: AbortSignal): Promise<readonly SessionHeader[]>;
}

/** One live session as search indexes it: its header and a capture of its byte log, with the log's id. */
export interface LiveSearchSource {
  readonly header: SessionHeader;
  readonly logId: string;
  readonly capture: LiveLogCapture;
}

/** How the service is built. */
export interface SearchServiceOptions {
  readonly config: SearchConfig;
  readonly index: SearchIndex;
  /** The persisted sessions (`undefined`: an engine without a root; every search answers no results). */
  readonly store: SearchStore | undefined;
  /** Title observations for labels (the engine's title path: an unchanged log costs a `stat`). */
  readonly readTitleSnapshots: (ids: readonly SessionId[], signal?: AbortSignal) => Promise<SessionTitleObservation[]>;
  /** Progress of the index update (sessions checked of the listing). */
  readonly onProgress?: (done: number, total: number) => void;
  /**
   * The corpus view's version and what changed since `since`, the version the index was last brought up to date at
   * (the engine's warm view, `WarmDiscovery.corpusChanges`; absent without one; `undefined` when the view cannot
   * answer). While the version is that same object, nothing changed below the root as far as the view knows, so the
   * update — one `stat` per log in the worker — is skipped; otherwise only the sessions the view reports changed are
   * looked at (the whole listing when it does not know). The view's own staleness bound (`corpus.revalidateMs`) then
   * bounds how stale a search can be, exactly as for discovery.
   */
  readonly corpusChanges?: (since: object | undefined, signal?: AbortSignal) => Promise<CorpusChangeReport | undefined>;
  /**
   * The attached live sessions, captured now (absent: none). Their in-memory logs win over any persisted copy
   * (SESSION-LOG.md §10), so they are indexed from their byte logs and left out of the persisted listing.
   */
  readonly live?: () => readonly LiveSearchSource[];
}

/** The search index as `sessionctx index status --search` reports it: where it is and what it holds of the root. */
export interface SearchIndexStatus extends IndexFileStatus {
  /** The index file, or `null` when the index is kept in memory (`search.directory: null`, no cache directory). */
  readonly path: string | null;
  /** The schema version this build writes (a file of another is rebuilt by the next search or build). */
  readonly currentSchemaVersion: number;
}

/** What clearing the search index did. */
export interface SearchIndexClearResult extends IndexClearResult {
  /** The index file that was removed (or was not there), or `null` for an in-memory index. */
  readonly path: string | null;
}

/** Options of {@link SearchService.build}. */
export interface SearchBuildOptions {
  readonly signal?: AbortSignal;
  /** Sessions checked so far, of the listing's total (instead of the service's own progress callback). */
  readonly onProgress?: (done: number, total: number) => void;
}

/** What the last index update was taken at, to tell what the next one must look at. */
interface SyncedState {
  /** The corpus view's version. */
  readonly version: object;
  /** The live sessions' ids, in order. */
  readonly liveIds: string;
  /** The live sessions' ids, log ids and event counts. */
  readonly liveLogs: string;
  readonly summary: Awaited<ReturnType<SearchIndex['sync']>>;
}

function invalid(message: string): SearchError {
  return new SearchError('SEARCH_INVALID_QUERY', message);
}

/**
 * The FTS5 string literal of a phrase: quoted, quotes doubled, so operators, column filters and parentheses are
 * data. NUL becomes a space: it separates tokens either way (it is not a letter or digit), and SQLite would end
 * the text at it.
 */
export function phraseLiteral(phrase: string): string {
  return `"${phrase.replaceAll('\u0000', ' ').replaceAll('"', '""')}"`;
}

interface CursorData {
  readonly v: 1;
  readonly o: number;
  readonly k: string;
}

/** What a cursor is bound to: everything of the query but its limit and cursor. */
function fingerprint(query: SearchQuery, roles: readonly SearchRole[]): string {
  const bound = [query.query, query.cwd ?? null, query.since ?? null, query.until ?? null, roles];
  return createHash('sha256').update(JSON.stringify(bound)).digest('base64url').slice(0, 16);
}

function encodeCursor(offset: number, key: string): string {
  return encodeOpaqueCursor({ v: 1, o: offset, k: key } satisfies CursorData);
}

/** The cursor of the page after `plan`'s, bound to the query `key` names (every backend's pages, one format). */
export function nextPageCursor(plan: Pick<QueryPlan, 'offset' | 'limit'>, key: string): string {
  return encodeCursor(plan.offset + plan.limit, key);
}

function decodeCursor(cursor: string, key: string): number {
  const value = decodeOpaqueCursor(cursor) as Partial<CursorData> | null | undefined;
  if (value?.v !== 1 || typeof value.o !== 'number' || !Number.isSafeInteger(value.o) || value.o < 0 || value.k !== key) {
    throw new SearchError('SEARCH_INVALID_CURSOR', 'the cursor is not one this search issued for this query');
  }
  return value.o;
}

/** The search service of one engine. */
export class SearchService {
  readonly #options: SearchServiceOptions;
  #realRoot: Promise<string> | undefined;
  /** What the index was last brought up to date at, and that update's summary. */
  #synced: SyncedState | undefined;

  constructor(options: SearchServiceOptions) {
    this.#options = options;
  }

  /** Resolves a query against the configuration (defaults, bounds, the phrase's literal, the cursor's offset). */
  plan(request: SearchQuery): { plan: QueryPlan; key: string } {
    const { config } = this.#options;
    // The one schema every face parses with (protocol/search-request.ts), bounded by this configuration's maxLimit.
    const parsed = parseSearchRequest(request, { maxLimit: config.maxLimit });
    if (!parsed.ok) throw invalid(describeSearchRequestProblem(parsed.problem));
    const query = parsed.query;
    const phrase = query.query;
    // What needs the index: trigram matching needs 3 characters.
    const cjk = CJK_PATTERN.test(phrase);
    if (cjk && [...phrase.trim()].length < 3) throw invalid('a query with CJK characters needs at least 3 characters (trigram index)');
    const roles = query.roles === undefined ? [...SEARCH_ROLES] : [...query.roles];
    const limit = query.limit ?? config.defaultLimit;
    const since = query.since ?? null;
    const until = query.until ?? null;
    // Bound to the request as given (an age such as `7d` stays text), so the next page of `--since 7d` is the same query.
    const key = fingerprint(request, roles);
    const offset = query.cursor === undefined ? 0 : decodeCursor(query.cursor, key);
    return {
      key,
      plan: {
        match: phraseLiteral(phrase),
        cjk,
        cwd: query.cwd ?? null,
        since,
        until,
        roles,
        offset,
        limit,
        hitsPerSession: config.hitsPerSession,
        snippetLength: config.snippetLength,
      },
    };
  }

  /**
   * One page of sessions whose current conversation contains the phrase, best first.
   * @throws SearchError (see `SearchErrorCode`); the signal's reason when it aborts.
   */
  async search(query: SearchQuery, signal?: AbortSignal): Promise<SearchPage> {
    signal?.throwIfAborted();
    const { config, index, store } = this.#options;
    if (!config.enabled) throw new SearchError('SEARCH_DISABLED', 'full-text search is turned off (search.enabled is false)');
    const { plan, key } = this.plan(query);
    if (store === undefined) return { results: [] };
    const root = await (this.#realRoot ??= realPathOf(store.config.root));
    await this.update(signal);
    const page = await index.query(root, plan, signal);
    const ids = page.results.map((result) => result.sessionId as SessionId);
    const titles = await this.#options.readTitleSnapshots(ids, signal);
    const labels = observedTitles(titles);
    const results: SearchSessionResult[] = page.results.map((result) =>
      labelledSearchResult(result, labels.get(result.sessionId) ?? result.sessionId),
    );
    return page.more ? { results, nextCursor: nextPageCursor(plan, key) } : { results };
  }

  /**
   * Brings the index up to date now, as a search would first (`sessionctx index build --search`).
   * @throws SearchError `SEARCH_DISABLED`, `SEARCH_UNAVAILABLE`, `SEARCH_INDEX_BUSY`, `SEARCH_FOREIGN_DATABASE`, `SEARCH_INDEX_FAILED`.
   */
  build(options: SearchBuildOptions = {}): Promise<SyncSummary> {
    if (!this.#options.config.enabled) {
      return Promise.reject(new SearchError('SEARCH_DISABLED', 'full-text search is turned off (search.enabled is false)'));
    }
    return this.update(options.signal, options.onProgress ?? this.#options.onProgress);
  }

  /**
   * Where the index is and what it holds of this root; creates, rebuilds and modifies nothing.
   * @throws SearchError `SEARCH_UNAVAILABLE`, `SEARCH_INDEX_BUSY`, `SEARCH_FOREIGN_DATABASE`, `SEARCH_INDEX_FAILED`.
   */
  async status(signal?: AbortSignal): Promise<SearchIndexStatus> {
    const { config, index, store } = this.#options;
    const root = store === undefined ? '' : await (this.#realRoot ??= realPathOf(store.config.root));
    const file = await index.status(root, signal);
    return { path: config.databasePath, ...file, currentSchemaVersion: SEARCH_SCHEMA_VERSION };
  }

  /**
   * Removes the index file (one for every root), waiting for another process's write to end; the next search or
   * build rebuilds it from the logs.
   * @throws SearchError `SEARCH_INDEX_BUSY`, `SEARCH_FOREIGN_DATABASE` (the file is left alone), `SEARCH_INDEX_FAILED`.
   */
  async clear(signal?: AbortSignal): Promise<SearchIndexClearResult> {
    const { config, index, store } = this.#options;
    const root = store === undefined ? '' : await (this.#realRoot ??= realPathOf(store.config.root));
    const result = await index.clear(root, signal);
    // What the index held is gone: the next search must look at every log again, whatever the view says.
    this.#synced = undefined;
    return { path: config.databasePath, ...result };
  }

  /**
   * Brings the index of the root up to date with the store's listing and the live sessions (what every search does
   * first). With an unchanged corpus view only the live sessions are looked at, and nothing when they did not grow;
   * with a changed one only the sessions it reports changed (and the live ones), when the index can take that.
   * @param signal - aborts the update.
   * @param onProgress - sessions checked of the listing (default: the service's own callback).
   */
  async update(signal?: AbortSignal, onProgress = this.#options.onProgress): ReturnType<SearchIndex['sync']> {
    const { config, index, store } = this.#options;
    if (store === undefined) {
      return { sessions: 0, live: 0, unchanged: 0, appended: 0, rebuilt: 0, removed: 0, unindexable: 0, scannedBytes: 0, documents: 0 };
    }
    const root = await (this.#realRoot ??= realPathOf(store.config.root));
    // Taken before the listing: a change after it makes the next version differ, so it is never skipped.
    const corpus = await this.#options.corpusChanges?.(this.#synced?.version, signal);
    const version = corpus?.version;
    const live: SyncLive[] = (this.#options.live?.() ?? []).map((source) => ({
      sessionId: source.header.id,
      cwd: source.header.cwd ?? null,
      createdAt: source.header.createdAt,
      logId: source.logId,
      log: source.capture,
    }));
    const liveIds = live.map((source) => source.sessionId).join('\u0000');
    const liveLogs = live.map((source) => `${source.sessionId}\u0000${source.logId}\u0000${source.log.events}`).join('\u0001');
    const synced = this.#synced;
    const viewUnchanged = version !== undefined && synced?.version === version;
    if (viewUnchanged && synced.liveLogs === liveLogs) {
      return {
        ...synced.summary,
        unchanged: synced.summary.sessions - synced.summary.unindexable,
        appended: 0,
        rebuilt: 0,
        removed: 0,
        scannedBytes: 0,
      };
    }
    const request = { root, storeRoot: store.config.root, compression: store.config.compression, includeTools: config.includeTools, live };
    const options = { ...(signal === undefined ? {} : { signal }), ...(onProgress === undefined ? {} : { onProgress }) };
    let summary: Awaited<ReturnType<SearchIndex['sync']>> | undefined;
    const changed = corpus?.changed;
    if (viewUnchanged && synced.liveIds === liveIds) {
      // Nothing below the root changed and the same sessions are live: only their logs are looked at.
      summary = await index.sync({ ...request, artifacts: null }, options);
    } else if (changed !== undefined && synced !== undefined && synced.liveIds === liveIds) {
      // The view knows what changed since the last update and the same sessions are live: only those are looked at
      // (`undefined`: the index cannot vouch for its other entries now, so the whole listing follows).
      const liveSet = new Set(live.map((source) => source.sessionId));
      const artifacts = liveSet.size === 0 ? changed.listed : changed.listed.filter((header) => !liveSet.has(header.id));
      const removed = liveSet.size === 0 ? changed.removed : changed.removed.filter((id) => !liveSet.has(id));
      summary = await index.syncChanges({ ...request, artifacts, removed }, options);
    }
    if (summary === undefined) {
      const headers = await store.list(signal);
      // The headers go as they are (the backend packs what it sends); only live sessions are left out.
      let artifacts: readonly SessionHeader[] = headers;
      if (live.length > 0) {
        const liveSet = new Set(live.map((source) => source.sessionId));
        artifacts = headers.filter((header) => !liveSet.has(header.id));
      }
      summary = await index.sync({ ...request, artifacts }, options);
    }
    this.#synced = version === undefined ? undefined : { version, liveIds, liveLogs, summary };
    return summary;
  }
}
