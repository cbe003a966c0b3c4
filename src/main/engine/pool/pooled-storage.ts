/**
 * A `SessionStorage` whose inspections run as `inspect` tasks on the pool (SESSION-LOG.md §10.6 rule 2):
 * the worker reads, decodes and validates the artifact and sends the balanced events back (structured
 * clone, see bench/transport-codec.ts). For heavy whole-log reads (DCP statistics, `show`, the
 * query layer's `readSurface` in the engine); the reference hot path uses `readSource` instead.
 */
import { deepFreeze } from '../../../protocol/deep-freeze.js';
import type { SessionEvent, SessionHeader, SessionId } from '../../../protocol/events.js';
import type { SessionInspection, SessionStorage } from '../corpus/session-storage.js';
import { sessionNotFoundError } from '../../../protocol/layout-errors.js';
import type { ListingReport } from '../../../protocol/listing-problem.js';
import type { PoolRendererStorage } from './pool-source-renderer.js';
import type { TaskRunner } from './task-runner.js';

/** The store side: listing (with its problems, when the store reports them), lookup and location (the JSONL store satisfies it). */
export type PooledStorageBackend = PoolRendererStorage & { listReport?(signal?: AbortSignal): Promise<ListingReport> };

/** Lists through the store, inspects on the pool. */
export class PooledSessionStorage implements SessionStorage {
  readonly #backend: PooledStorageBackend;
  readonly #runner: TaskRunner;

  /** Lists and looks up through `backend`, inspects on `runner`. */
  constructor(backend: PooledStorageBackend, runner: TaskRunner) {
    this.#backend = backend;
    this.#runner = runner;
  }

  /** The store's header listing (§9.13). */
  list(signal?: AbortSignal): Promise<readonly SessionHeader[]> {
    return this.#backend.list(signal);
  }

  /** The store's listing with its problems; a backend without `listReport` reports none. */
  async listReport(signal?: AbortSignal): Promise<ListingReport> {
    if (this.#backend.listReport !== undefined) return this.#backend.listReport(signal);
    return { headers: await this.#backend.list(signal), problems: [] };
  }

  /**
   * A full inspection (§9.15): lookup here, everything else in a worker. Rejects with the same errors as
   * the store's own `inspect` (rebuilt across the thread boundary), or at once with `signal.reason`.
   */
  async inspect(id: SessionId, signal?: AbortSignal): Promise<SessionInspection> {
    signal?.throwIfAborted();
    const path = await this.#backend.locate(id, signal);
    if (path === undefined) throw sessionNotFoundError(id);
    const { root, compression } = this.#backend.config;
    const value = await this.#runner.run(
      'inspect',
      { artifact: { sessionId: id, path, root, compression } },
      signal === undefined ? {} : { signal },
    );
    // The clone arrived unfrozen; the store's contract is frozen balanced events.
    const events = value.events as SessionEvent[];
    for (const event of events) deepFreeze(event);
    return { meta: deepFreeze(value.header), events: Object.freeze(events) };
  }
}
