/**
 * The index behind search (issue 17 item 5): what the search service needs of a backend, so the per-machine SQLite
 * worker ({@link SqliteSearchIndex}) could be replaced by a shared database server (e.g. PostgreSQL full-text
 * search, ARCHITECTURE.md "Search") without changing the service, the engine API, the CLI, MCP or the Web API.
 */
import type {
  IndexClearResult,
  IndexFileStatus,
  QueryPlan,
  SyncChangesInput,
  SyncInput,
  SyncSummary,
  WorkerPage,
} from '../../../workers/search/search-messages.js';

/** Options of {@link SearchIndex.sync}. */
export interface SyncOptions {
  readonly signal?: AbortSignal;
  /** Sessions checked so far, of the listing's total. */
  readonly onProgress?: (done: number, total: number) => void;
}

/** A search backend. Every method rejects at once with `signal.reason` when its signal aborts. */
export interface SearchIndex {
  /** Brings one root's documents up to date with its listing (incremental per artifact revision). */
  sync(request: SyncInput, options?: SyncOptions): Promise<SyncSummary>;
  /**
   * Brings one root's documents up to date with only the sessions that may have changed since the caller's last sync
   * of it (the caller vouches for every other entry), or resolves `undefined`, doing nothing, when the backend cannot
   * take changes only now (its entries may not be those that sync left): the caller then syncs the whole listing.
   */
  syncChanges(request: SyncChangesInput, options?: SyncOptions): Promise<SyncSummary | undefined>;
  /** Runs a resolved query over one root's documents. */
  query(root: string, plan: QueryPlan, signal?: AbortSignal): Promise<WorkerPage>;
  /** The index's storage and what it holds of one root; creates and rebuilds nothing. */
  status(root: string, signal?: AbortSignal): Promise<IndexFileStatus>;
  /** Removes the stored index (every root's: one store for all), once no other writer holds it; the next sync rebuilds. */
  clear(root: string, signal?: AbortSignal): Promise<IndexClearResult>;
  /** Releases the backend (ends the worker). Idempotent. */
  close(): Promise<void>;
}
