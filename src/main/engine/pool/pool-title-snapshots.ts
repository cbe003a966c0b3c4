/**
 * `readTitleSnapshots` (SESSION-LOG.md §10.5) with persisted observations batched into `observeTitles`
 * tasks (ARCHITECTURE.md §3 "Title observations"). Results equal `SessionQuery.readTitleSnapshots`: live
 * ids folded at once, one listing for the batch, per persisted id a full inspection, then "a live
 * session attached meanwhile wins", the header compatibility check and the title fold, each failure
 * rejecting only its id. It differs in one respect: on abort it rejects with `signal.reason` at once
 * instead of waiting for started inspections (the reference service races anyway, §7.2).
 */
import { raceWithSignal } from '../signal/abort.js';
import { deepFreeze } from '../../../protocol/deep-freeze.js';
import type { SessionHeader, SessionId } from '../../../protocol/events.js';
import { assertCompatibleHeaders } from '../../../protocol/session-header.js';
import type { ArtifactRef, TitleFileOutcome } from '../../../protocol/wire/task-shapes.js';
import { rebuildError } from '../../../protocol/wire/wire-error.js';
import type { LiveRegistry } from '../corpus/live-registry.js';
import { headersById, type SessionTitleObservation } from '../corpus/session-query.js';
import { observeLiveFirst, observeTitle, rejectedTitle } from '../corpus/title-observation.js';
import { inspectionFailure, listingFailure, sessionNotFound } from '../corpus/storage-error-mapping.js';
import { sessionNotFoundError } from '../../../protocol/layout-errors.js';
import type { PoolRendererStorage } from './pool-source-renderer.js';
import type { TaskRunner } from './task-runner.js';

/** Construction options of {@link PoolTitleSnapshots}. */
export interface PoolTitleSnapshotsOptions {
  readonly runner: TaskRunner;
  readonly registry: LiveRegistry;
  readonly storage?: PoolRendererStorage;
  /** Files per `observeTitles` task; default 16. */
  readonly batchSize?: number;
}

/** One persisted id waiting for its observation: the listed header and, once looked up, its artifact. */
interface PendingTitle {
  readonly id: SessionId;
  readonly listed: SessionHeader;
}

/** Title reads with batched worker observations. */
export class PoolTitleSnapshots {
  readonly #runner: TaskRunner;
  readonly #registry: LiveRegistry;
  readonly #storage: PoolRendererStorage | undefined;
  readonly #batchSize: number;

  /** Binds the runner, the live registry and the store (if any). */
  constructor(options: PoolTitleSnapshotsOptions) {
    this.#runner = options.runner;
    this.#registry = options.registry;
    this.#storage = options.storage;
    this.#batchSize = options.batchSize ?? 16;
  }

  /**
   * One result per unique id in first-occurrence order (§10.5); `listing`, when given, is the caller's own listing,
   * used instead of a fresh one (as `SessionQuery.readTitleSnapshots` takes it).
   */
  async readTitleSnapshots(
    ids: Iterable<SessionId>,
    signal?: AbortSignal,
    listing?: readonly SessionHeader[],
  ): Promise<SessionTitleObservation[]> {
    const { uniqueIds, results, unresolved } = observeLiveFirst(ids, this.#registry, signal);
    const storage = this.#storage;
    if (unresolved.length > 0 && storage === undefined)
      for (const id of unresolved) results.set(id, rejectedTitle(id, sessionNotFound(id)));
    if (unresolved.length > 0 && storage !== undefined) {
      const work = this.#observePersisted(storage, unresolved, results, signal, listing);
      await (signal === undefined ? work : raceWithSignal(work, signal));
    }
    signal?.throwIfAborted();
    return uniqueIds.map((id) => results.get(id) as SessionTitleObservation);
  }

  async #observePersisted(
    storage: PoolRendererStorage,
    unresolved: readonly SessionId[],
    results: Map<SessionId, SessionTitleObservation>,
    signal: AbortSignal | undefined,
    given: readonly SessionHeader[] | undefined,
  ): Promise<void> {
    let listing: readonly SessionHeader[];
    try {
      listing = given ?? (await storage.list(signal));
    } catch (error) {
      signal?.throwIfAborted();
      for (const id of unresolved) results.set(id, rejectedTitle(id, listingFailure(error)));
      return;
    }
    signal?.throwIfAborted();
    const listedById = headersById(listing);
    const pending: PendingTitle[] = [];
    for (const id of unresolved) {
      const listed = listedById.get(id);
      if (listed !== undefined) {
        pending.push({ id, listed });
        continue;
      }
      const attached = this.#registry.get(id);
      results.set(
        id,
        attached === undefined ? rejectedTitle(id, sessionNotFound(id)) : observeTitle(id, attached.header, attached.events, undefined),
      );
    }
    const batches: PendingTitle[][] = [];
    for (let at = 0; at < pending.length; at += this.#batchSize) batches.push(pending.slice(at, at + this.#batchSize));
    await Promise.all(batches.map((batch) => this.#observeBatch(storage, batch, results, signal)));
  }

  /** Looks the batch's artifacts up, observes them in one task and settles every id of the batch. */
  async #observeBatch(
    storage: PoolRendererStorage,
    batch: readonly PendingTitle[],
    results: Map<SessionId, SessionTitleObservation>,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    const located: Array<{ entry: PendingTitle; artifact: ArtifactRef }> = [];
    for (const entry of batch) {
      const artifact = await this.#locate(storage, entry.id, signal).catch((error: unknown) => {
        signal?.throwIfAborted();
        results.set(entry.id, rejectedTitle(entry.id, inspectionFailure(entry.id, error)));
        return undefined;
      });
      if (artifact !== undefined) located.push({ entry, artifact });
    }
    if (located.length === 0) return;
    const files = located.map((item) => item.artifact);
    let outcomes: readonly TitleFileOutcome[];
    try {
      outcomes = (await this.#runner.run('observeTitles', { files }, signal === undefined ? {} : { signal })).outcomes;
    } catch (error) {
      signal?.throwIfAborted();
      for (const { entry } of located) results.set(entry.id, rejectedTitle(entry.id, inspectionFailure(entry.id, error)));
      return;
    }
    located.forEach(({ entry }, index) => results.set(entry.id, this.#settle(entry, outcomes[index] as TitleFileOutcome)));
  }

  async #locate(storage: PoolRendererStorage, id: SessionId, signal: AbortSignal | undefined): Promise<ArtifactRef> {
    const path = await storage.locate(id, signal);
    if (path === undefined) throw sessionNotFoundError(id);
    return { sessionId: id, path, root: storage.config.root, compression: storage.config.compression };
  }

  /** §10.5 step 5 after the observation: inspection failure, then live wins, then compatibility, then the fold. */
  #settle(entry: PendingTitle, outcome: TitleFileOutcome): SessionTitleObservation {
    const { id, listed } = entry;
    if (outcome.status === 'rejected' && outcome.phase === 'inspect')
      return rejectedTitle(id, inspectionFailure(id, rebuildError(outcome.error)));
    const attached = this.#registry.get(id);
    if (attached !== undefined) return observeTitle(id, attached.header, attached.events, undefined);
    try {
      assertCompatibleHeaders(outcome.header, listed);
    } catch (error) {
      return rejectedTitle(id, error);
    }
    if (outcome.status === 'rejected') return rejectedTitle(id, rebuildError(outcome.error));
    const session = outcome.header;
    return {
      sessionId: id,
      status: 'fulfilled',
      value: outcome.title === undefined ? { session } : { session, title: deepFreeze(outcome.title) },
    };
  }
}
