/**
 * The pool-backed reference source renderer (SESSION-REFERENCE.md §8 "Placement", ARCHITECTURE.md §3):
 * one `readSource` task per source reads, folds, projects, retains and serialises it in a worker, with
 * exactly the observation semantics of `readSurface` (SESSION-LOG.md §10.4 steps 1–8), captured at call
 * start. The main thread only lists headers, looks the artifact up and stats it (async I/O), or captures
 * a live byte log (O(1)); none of its work grows with the size of a source.
 */
import { stat } from 'node:fs/promises';
import { raceWithSignal } from '../signal/abort.js';
import type { SessionHeader, SessionId } from '../../../protocol/events.js';
import { assertCompatibleHeaders } from '../../../protocol/session-header.js';
import type { Compression } from '../../../protocol/storage-paths.js';
import type { ArtifactRef, CapturedRevision, ReadSourceValue } from '../../../protocol/wire/task-shapes.js';
import type { CachedSource, SourceCache, SourceServed } from '../cache/source-cache.js';
import { renderProjected } from '../../../workers/reference/render-projected.js';
import type { LiveLogCapture } from '../../../protocol/wire/live-log-codec.js';
import { rebuildError } from '../../../protocol/wire/wire-error.js';
import type { LiveRegistry, LiveSession } from '../corpus/live-registry.js';
import { invalidSurfaceError } from '../corpus/session-query.js';
import { inspectionFailure, listingFailure, sessionNotFound } from '../corpus/storage-error-mapping.js';
import type { DamagedLogErrors } from '../corpus/query-config.js';
import { LiveLogTracker } from '../live/live-log-tracker.js';
import type { OversizedSource, ReferenceSourceRenderer, RenderedSource } from '../reference/reference-types.js';
import { sessionNotFoundError } from '../../../protocol/layout-errors.js';
import { withStoreIo } from '../../../io/regular-file.js';
import type { TaskRunner } from './task-runner.js';
import { TickCoalescer } from './tick-coalescer.js';
import { assertNever } from '../../../protocol/assert-never.js';
import { errorCode } from '../../../protocol/error-code.js';

/** The persisted side the renderer reads: header listing, lookup by id, and where the store lives. */
export interface PoolRendererStorage {
  list(signal?: AbortSignal): Promise<readonly SessionHeader[]>;
  locate(id: SessionId, signal?: AbortSignal): Promise<string | undefined>;
  readonly config: { readonly root: string; readonly compression: Compression };
}

/** Construction options of {@link PoolSourceRenderer}. */
export interface PoolSourceRendererOptions {
  /** The pool (or the in-thread runner) that runs `readSource` tasks. */
  readonly runner: TaskRunner;
  /** The host's live sessions; a live session wins over its persisted copy. */
  readonly registry: LiveRegistry;
  /** The persisted sessions, if the host mounts a JSONL store. */
  readonly storage?: PoolRendererStorage;
  /** The byte logs of live sessions; share one tracker with whoever attaches sessions so appends are encoded as they happen. */
  readonly liveLogs?: LiveLogTracker;
  /** The incremental source cache of persisted sources (issue 15); without it every source is read whole. */
  readonly sourceCache?: SourceCache;
  /** Called once per rendered source with how it was served (live and uncached sources are `cold`). */
  readonly onSourceServed?: (report: SourceServedReport) => void;
  /** How damaged log bytes are reported (the query config's `damagedLogErrors`; default `corruption`). */
  readonly damagedLogErrors?: DamagedLogErrors;
  /**
   * The listed header of an id from a listing the engine keeps current (the warm corpus view), or `undefined` when it
   * does not list the id. Without it, or when it does not list the id, the renderer decides from the lookup and a
   * fresh listing (see {@link PoolSourceRenderer.render}).
   */
  readonly keptListing?: (sessionId: SessionId) => Promise<SessionHeader | undefined>;
}

/** How one source of a preparation was served (issue 15 item 4). */
export interface SourceServedReport {
  readonly sessionId: SessionId;
  readonly served: SourceServed;
}

/**
 * The persisted artifact of `id` as it is now: lookup (stage R1) and its identity and size. Shared by
 * the renders of one job (see TickCoalescer); `signal` aborts once all of them have.
 */
async function captureArtifact(storage: PoolRendererStorage, id: SessionId, signal: AbortSignal): Promise<CapturedArtifact> {
  const path = await storage.locate(id, signal);
  if (path === undefined) throw sessionNotFoundError(id);
  signal.throwIfAborted();
  const stats = await withStoreIo('stat', path, () => stat(path, { bigint: true }));
  return {
    sessionId: id,
    path,
    root: storage.config.root,
    compression: storage.config.compression,
    capture: { dev: stats.dev.toString(), ino: stats.ino.toString(), size: stats.size.toString() },
    ctimeNs: stats.ctimeNs.toString(),
  };
}

/** An artifact as captured: the task's reference plus the capture's modification time (the source cache's key). */
type CapturedArtifact = ArtifactRef & { readonly capture: CapturedRevision; readonly ctimeNs: string };

/** A rendered task value as the service expects it, or the observation's fold failure thrown. */
function renderedSource(value: ReadSourceValue): RenderedSource | OversizedSource {
  switch (value.status) {
    case 'surface-failed':
      throw rebuildError(value.error);
    case 'scanned':
    case 'entry':
    case 'unscannable':
      // Only a `scan` payload answers these, and the source cache consumes them.
      throw new Error(`readSource answered ${value.status} to a rendering`);
    case 'rendered': {
      const render = value.render;
      if (!render.fits) return { fits: false, minimumBudgetBytes: render.minimumBudgetBytes };
      return {
        fits: true,
        sessionId: render.sessionId,
        capturedThroughSeq: render.capturedThroughSeq,
        json: render.json,
        stats: render.stats,
      };
    }
    default:
      assertNever(value, 'unknown readSource value');
  }
}

/** Renders reference sources on the worker pool. */
export class PoolSourceRenderer implements ReferenceSourceRenderer {
  readonly #runner: TaskRunner;
  readonly #registry: LiveRegistry;
  readonly #storage: PoolRendererStorage | undefined;
  readonly #liveLogs: LiveLogTracker;
  readonly #sourceCache: SourceCache | undefined;
  readonly #onSourceServed: ((report: SourceServedReport) => void) | undefined;
  readonly #damagedLogErrors: DamagedLogErrors;
  readonly #keptListing: PoolSourceRendererOptions['keptListing'];
  /** One header listing per job, shared by the renders that ask for it (see TickCoalescer). */
  readonly #listings = new TickCoalescer<readonly SessionHeader[]>();
  /** One lookup and `stat` per id and job. */
  readonly #captures = new TickCoalescer<CapturedArtifact>();

  /** Binds the runner, the live registry, the store (if any) and the live byte logs. */
  constructor(options: PoolSourceRendererOptions) {
    this.#runner = options.runner;
    this.#registry = options.registry;
    this.#storage = options.storage;
    this.#liveLogs = options.liveLogs ?? new LiveLogTracker();
    this.#sourceCache = options.sourceCache;
    this.#onSourceServed = options.onSourceServed;
    this.#damagedLogErrors = options.damagedLogErrors ?? 'corruption';
    this.#keptListing = options.keptListing;
  }

  /**
   * Reads one source with `readSurface` semantics and renders it within `maxBytes`. Rejects with the
   * query layer's errors (not found, §10.1 storage mapping, source conflict, invalid surface), or with
   * `signal.reason` as soon as `signal` aborts — the service turns that into `CANCELLED`.
   */
  async render(sessionId: SessionId, label: string, maxBytes: number, signal: AbortSignal): Promise<RenderedSource | OversizedSource> {
    signal.throwIfAborted();
    const live = this.#registry.get(sessionId);
    if (live !== undefined) return this.#renderLive(live, label, maxBytes, signal);
    const storage = this.#storage;
    if (storage === undefined) throw sessionNotFound(sessionId);
    // The capture (lookup and `stat`) starts before the listed check, so the observation is fixed as early as possible.
    const capture = this.#captures.run(sessionId, (shared) => captureArtifact(storage, sessionId, shared), signal);
    const listed = await this.#listedHeader(storage, sessionId, capture, signal);
    signal.throwIfAborted();
    if (listed === undefined) throw sessionNotFound(sessionId);
    const { value, served } = await this.#inspect(sessionId, capture, label, maxBytes, signal);
    // §10.4 step 4: a session attached while storage was read is newer than what storage returned.
    const attached = this.#registry.get(sessionId);
    if (attached !== undefined) return this.#renderLive(attached, label, maxBytes, signal);
    if (value.status === 'scanned' || value.status === 'entry' || value.status === 'unscannable')
      throw new Error(`readSource answered ${value.status} to a rendering`);
    assertCompatibleHeaders(value.header, listed);
    const rendered = renderedSource(value);
    this.#onSourceServed?.({ sessionId, served });
    return rendered;
  }

  /**
   * The live branch: capture the byte log's current length now (O(1)), render the prefix in a worker. A log with an
   * event beyond the nesting limit (SESSION-LOG.md §9.15a) cannot be captured; it fails as `readSurface` fails on it.
   */
  async #renderLive(live: LiveSession, label: string, maxBytes: number, signal: AbortSignal): Promise<RenderedSource | OversizedSource> {
    let log: LiveLogCapture;
    try {
      log = this.#liveLogs.capture(live);
    } catch (error) {
      if ((error as { code?: unknown }).code === 'SESSION_LOG_TOO_DEEP') throw invalidSurfaceError(error);
      throw error;
    }
    const value = await this.#runner.run('readSource', { source: 'live', header: live.header, log, label, maxBytes }, { signal });
    const rendered = renderedSource(value);
    this.#onSourceServed?.({ sessionId: live.header.id, served: 'cold' });
    return rendered;
  }

  /**
   * The listed header of `sessionId` (§10.4 step 2). An engine that keeps a listing current (the warm corpus view:
   * tolerant listing, current up to its notifications and sweep) answers without listing every session — at 25,000
   * sessions a listing is 0.6 s, and it was every citation's cost:
   * 1. the kept listing's header when it lists the id (the source's bytes are still captured and read exactly);
   * 2. not found when the lookup (§9.14, started with the capture) finds no artifact of the id anywhere: a tolerant
   *    listing lists an id only from an artifact at that id's own path (§9.5), so this is exact — and a session
   *    another host owns goes to the fleet without a listing of this root;
   * 3. otherwise a fresh listing (a session the view has not seen yet, or a lookup that failed: the listing decides
   *    how such damage is reported).
   * Without a kept listing, every render lists (one listing shared by the renders of a job), as dsh does.
   */
  async #listedHeader(
    storage: PoolRendererStorage,
    sessionId: SessionId,
    capture: Promise<CapturedArtifact>,
    signal: AbortSignal,
  ): Promise<SessionHeader | undefined> {
    if (this.#keptListing !== undefined) {
      let kept: SessionHeader | undefined;
      let failed = false;
      try {
        kept = await raceWithSignal(this.#keptListing(sessionId), signal);
      } catch {
        // A kept listing that cannot answer (its root unreadable): the fresh listing reports it.
        signal.throwIfAborted();
        failed = true;
      }
      if (kept !== undefined) return kept;
      if (!failed && (await this.#absent(capture, signal))) return undefined;
    }
    return (await this.#list(storage, signal)).find((header) => header.id === sessionId);
  }

  /** Whether the lookup found no artifact of the id (its other failures are left to the listing and the inspection). */
  async #absent(capture: Promise<CapturedArtifact>, signal: AbortSignal): Promise<boolean> {
    try {
      await raceWithSignal(capture, signal);
      return false;
    } catch (error) {
      signal.throwIfAborted();
      return errorCode(error) === 'SESSION_QUERY_SESSION_NOT_FOUND';
    }
  }

  /**
   * The header listing with the §10.1 mapping, settling at once on abort. Renders of one job share one
   * listing that started after all of them, aborted once all of them have aborted.
   */
  async #list(storage: PoolRendererStorage, signal: AbortSignal): Promise<readonly SessionHeader[]> {
    try {
      return await raceWithSignal(
        this.#listings.run('', (shared) => storage.list(shared), signal),
        signal,
      );
    } catch (error) {
      signal.throwIfAborted();
      throw listingFailure(error);
    }
  }

  /**
   * Lookup, capture and the observation with the §10.1 mapping of inspection failures: from the source cache when
   * it can answer (rendered here from the kept projection), else the cache's cold read (one worker reads, renders
   * and builds the entry), else — no cache, or a source that is not a valid session — the whole inspection and
   * rendering in a worker, which reports failures with their usual texts.
   */
  async #inspect(
    sessionId: SessionId,
    capture: Promise<CapturedArtifact>,
    label: string,
    maxBytes: number,
    signal: AbortSignal,
  ): Promise<{ value: ReadSourceValue; served: SourceServed }> {
    const failed = (error: unknown): never => {
      signal.throwIfAborted();
      throw inspectionFailure(sessionId, error, this.#damagedLogErrors);
    };
    let captured: CapturedArtifact;
    try {
      captured = await raceWithSignal(capture, signal);
    } catch (error) {
      return failed(error);
    }
    const { ctimeNs, ...artifact } = captured;
    const cache = this.#sourceCache;
    if (cache !== undefined) {
      let cached: CachedSource | undefined;
      try {
        cached = await raceWithSignal(cache.observe(artifact, ctimeNs, this.#runner, signal), signal);
      } catch (error) {
        return failed(error);
      }
      if (cached !== undefined) {
        const { header } = cached;
        const input = {
          sessionId: header.id,
          label,
          cwd: header.cwd ?? null,
          capturedThroughSeq: cached.capturedThroughSeq,
          items: cached.items,
        };
        return { value: { status: 'rendered', header, render: renderProjected(input, maxBytes) }, served: cached.served };
      }
      // A miss: one worker reads the source once, answers and builds the entry (issue 27).
      let read: Awaited<ReturnType<SourceCache['readCold']>>;
      try {
        read = await raceWithSignal(cache.readCold(artifact, ctimeNs, this.#runner, { label, maxBytes }, signal), signal);
      } catch (error) {
        return failed(error);
      }
      if (read !== undefined) return { value: { status: 'rendered', header: read.header, render: read.render }, served: 'cold' };
    }
    let value: ReadSourceValue;
    try {
      value = await this.#runner.run('readSource', { source: 'persisted', artifact, label, maxBytes }, { signal });
    } catch (error) {
      return failed(error);
    }
    return { value, served: 'cold' };
  }
}
