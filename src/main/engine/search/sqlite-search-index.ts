/**
 * The SQLite backend of search: a dedicated worker thread (`workers/search/search-worker.ts`) that owns the native
 * module and the index file, reached through the typed message protocol of `search-messages.ts`. The worker starts
 * on the first request; requests are sent one at a time. An aborted request rejects its caller at once with
 * `signal.reason`; the id is written to a shared `Int32` the worker polls, so it stops within a bounded step and
 * serves the next request. A worker that fails or exits fails its request with `SEARCH_WORKER_FAILED`, and the
 * next request starts a new one. While idle the worker does not keep the process alive.
 */
import { raceWithSignal } from '../signal/abort.js';
import { Worker } from 'node:worker_threads';
import { rebuildError } from '../../../protocol/wire/wire-error.js';
import { SearchError } from '../../../workers/search/search-error.js';
import {
  SEARCH_VALUE_CHECKS,
  isSearchReply,
  type SearchRequest,
  type SearchValues,
  type SearchWorkerData,
} from '../../../workers/search/search-messages.js';
import type { SearchIndex, SyncOptions } from './search-index.js';
import { SEARCH_WORKER_URL, takePrestartedSearchWorker } from './search-worker-thread.js';
import { packListing } from '../../../workers/search/packed-listing.js';
import type {
  IndexClearResult,
  IndexFileStatus,
  QueryPlan,
  SyncChangesInput,
  SyncInput,
  SyncSummary,
  WorkerPage,
} from '../../../workers/search/search-messages.js';

/** How long a closing worker may take to close its database before it is terminated. */
const CLOSE_GRACE_MS = 2000;

/** The native module search loads. */
export const SQLITE_MODULE = 'better-sqlite3';

/** How the backend is built. */
export interface SqliteSearchIndexOptions {
  readonly databasePath: string | null;
  readonly busyTimeoutMs: number;
  /** The native module's name (default {@link SQLITE_MODULE}; tests name a missing one). */
  readonly moduleName?: string;
}

interface Pending {
  readonly id: number;
  readonly onReply: (reply: { ok: true; value: unknown } | { ok: false; error: unknown }) => void;
  readonly onProgress?: (done: number, total: number) => void;
}

/** The SQLite worker as a {@link SearchIndex}. */
export class SqliteSearchIndex implements SearchIndex {
  readonly #options: SqliteSearchIndexOptions;
  readonly #cancel = new SharedArrayBuffer(4);
  #worker: Worker | undefined;
  #pending: Pending | undefined;
  #nextId = 1;
  #turn: Promise<void> = Promise.resolve();
  #closed = false;

  constructor(options: SqliteSearchIndexOptions) {
    this.#options = options;
  }

  sync(request: SyncInput, options: SyncOptions = {}): Promise<SyncSummary> {
    // Packed: the structured clone of 10,000 listing objects would stall this thread for milliseconds.
    const artifacts = request.artifacts === null ? null : packListing(request.artifacts);
    return this.#request('sync', (id) => ({ type: 'sync', id, ...request, artifacts }), options.signal, options.onProgress);
  }

  async syncChanges(request: SyncChangesInput, options: SyncOptions = {}): Promise<SyncSummary | undefined> {
    const artifacts = packListing(request.artifacts);
    const summary = await this.#request(
      'syncChanges',
      (id) => ({ type: 'sync', id, ...request, artifacts }),
      options.signal,
      options.onProgress,
    );
    return summary ?? undefined;
  }

  query(root: string, plan: QueryPlan, signal?: AbortSignal): Promise<WorkerPage> {
    return this.#request('query', (id) => ({ type: 'query', id, root, plan }), signal);
  }

  status(root: string, signal?: AbortSignal): Promise<IndexFileStatus> {
    return this.#request('status', (id) => ({ type: 'status', id, root }), signal);
  }

  clear(root: string, signal?: AbortSignal): Promise<IndexClearResult> {
    return this.#request('clear', (id) => ({ type: 'clear', id, root }), signal);
  }

  /**
   * Starts the worker thread now (it opens nothing until the first request) instead of on the first request. It
   * does not keep the process alive while idle. Does nothing once closed.
   */
  start(): void {
    if (this.#closed || this.#worker !== undefined) return;
    this.#ensureWorker().unref();
  }

  async close(): Promise<void> {
    this.#closed = true;
    const worker = this.#worker;
    this.#worker = undefined;
    if (worker === undefined) return;
    // Asked to close, the worker closes its database itself; one that does not end in time is terminated.
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => void worker.terminate(), CLOSE_GRACE_MS);
      worker.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
      worker.postMessage({ type: 'close' });
    });
  }

  /** Sends one request after the previous one settled in the worker; the caller's abort settles it at once. */
  #request<K extends keyof SearchValues>(
    kind: K,
    build: (id: number) => SearchRequest,
    signal: AbortSignal | undefined,
    onProgress?: (done: number, total: number) => void,
  ): Promise<SearchValues[K]> {
    if (signal?.aborted === true) return Promise.reject(signal.reason);
    if (this.#closed) return Promise.reject(new SearchError('SEARCH_WORKER_FAILED', 'the search index is closed'));
    const id = this.#nextId++;
    let abandoned = false;
    const work = new Promise<SearchValues[K]>((resolve, reject) => {
      const previous = this.#turn;
      this.#turn = previous.then(
        () =>
          new Promise<void>((done) => {
            if (abandoned || this.#closed) {
              done();
              return;
            }
            const worker = this.#ensureWorker();
            worker.ref();
            this.#pending = {
              id,
              ...(onProgress === undefined ? {} : { onProgress }),
              onReply: (reply) => {
                this.#pending = undefined;
                this.#worker?.unref();
                done();
                if (!reply.ok) reject(reply.error);
                else if (SEARCH_VALUE_CHECKS[kind](reply.value)) resolve(reply.value);
                else reject(new SearchError('SEARCH_WORKER_FAILED', `the search worker answered a malformed ${kind} result`));
              },
            };
            worker.postMessage(build(id));
          }),
      );
    });
    if (signal === undefined) return work;
    const onAbort = (): void => {
      abandoned = true;
      // The worker stops at its next check and then serves the next request; its answer is dropped.
      Atomics.store(new Int32Array(this.#cancel), 0, id);
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    return raceWithSignal(work, signal).finally(() => signal.removeEventListener('abort', onAbort));
  }

  #ensureWorker(): Worker {
    if (this.#worker !== undefined) return this.#worker;
    const workerData: SearchWorkerData = {
      databasePath: this.#options.databasePath,
      moduleName: this.#options.moduleName ?? SQLITE_MODULE,
      busyTimeoutMs: this.#options.busyTimeoutMs,
      cancel: this.#cancel,
    };
    // A thread the executable prestarted (`sessionctx search`) has loaded its modules already: it gets its data now.
    const adopted = takePrestartedSearchWorker();
    adopted?.postMessage({ type: 'init', data: workerData });
    const worker = adopted ?? new Worker(SEARCH_WORKER_URL, { workerData });
    const fail = (error: SearchError): void => {
      if (this.#worker === worker) this.#worker = undefined;
      this.#pending?.onReply({ ok: false, error });
    };
    worker.on('message', (message: unknown) => {
      const pending = this.#pending;
      if (!isSearchReply(message)) {
        fail(new SearchError('SEARCH_WORKER_FAILED', 'the search worker sent a malformed message'));
        void worker.terminate();
        return;
      }
      if (pending === undefined || message.id !== pending.id) return;
      if (message.type === 'progress') pending.onProgress?.(message.done, message.total);
      else pending.onReply(message.ok ? { ok: true, value: message.value } : { ok: false, error: rebuildError(message.error) });
    });
    worker.on('error', (error) =>
      fail(new SearchError('SEARCH_WORKER_FAILED', `the search worker failed: ${error.message}`, { cause: error })),
    );
    worker.on('exit', (code) => fail(new SearchError('SEARCH_WORKER_FAILED', `the search worker exited (code ${code})`)));
    this.#worker = worker;
    return worker;
  }
}
