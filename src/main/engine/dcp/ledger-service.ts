/**
 * Where `/dcp stats` recomputes its figures from the log (DCP.md §15.1, §19 D6). A small log is folded on the calling
 * thread; a log of at least `minEvents` events is folded by a `dcpLedger` task on the worker pool, from an O(1)
 * capture of the session's byte log, so the host's event loop does not stall while a large log is read. Both paths
 * run the same pure fold (`foldLedger`), so they give the same figures.
 */
import type { SessionEvent } from '../../../protocol/events.js';
import type { LedgerFold, LedgerWindow } from '../../../protocol/dcp/ledger-fold.js';
import { foldLedger } from '../../../protocol/dcp/ledger-fold.js';
import { DcpConfigError } from '../../../protocol/dcp/config-error.js';
import { errorMessage } from '../../../protocol/errors.js';
import { SessionPoolError } from '../../../protocol/wire/pool-errors.js';
import type { PluginLogger } from '../../host-api/host-api.js';
import type { LiveSession } from '../corpus/live-registry.js';
import { LiveLogTracker } from '../live/live-log-tracker.js';
import type { TaskRunner } from '../pool/task-runner.js';

/** The default `minEvents`: below it a fold costs about a millisecond on the calling thread (bench/RESULTS.md, D6). */
export const DEFAULT_LEDGER_POOL_MIN_EVENTS = 4096;

/** The default `catchUpSliceMs`: well inside the 5 ms stall budget of DCP.md §19 D6. */
export const DEFAULT_CATCH_UP_SLICE_MS = 2;

/** `dcpPlugin({ fullLogTasks })`: run full-log recomputations on this runner (normally a `WorkerPool`). */
export interface FullLogTasksOptions {
  /** The runner of `dcpLedger` tasks. The plugin does not own it and never closes it. */
  readonly runner: TaskRunner;
  /** Logs with fewer events are folded on the calling thread. A safe integer ≥ 0; default {@link DEFAULT_LEDGER_POOL_MIN_EVENTS}. */
  readonly minEvents?: number;
  /** The byte logs to capture from; share the reference pipeline's tracker to encode each event once. A new one otherwise. */
  readonly liveLogs?: LiveLogTracker;
  /**
   * A session that already holds `minEvents` events when DCP meets it (a reopened log) has its byte log encoded in
   * slices of about this many milliseconds, yielding between them. A finite number > 0; default {@link DEFAULT_CATCH_UP_SLICE_MS}.
   */
  readonly catchUpSliceMs?: number;
}

/** The resolved {@link FullLogTasksOptions}. */
export interface FullLogTasks {
  readonly runner: TaskRunner;
  readonly minEvents: number;
  readonly liveLogs: LiveLogTracker;
  readonly catchUpSliceMs: number;
}

/**
 * Validates `options` once, where the plugin is created.
 *
 * @throws DcpConfigError `DCP_CONFIG_INVALID` when `minEvents` is not a safe integer ≥ 0, `catchUpSliceMs` is not a
 * finite number > 0, or `runner` cannot run tasks.
 */
export function resolveFullLogTasks(options: FullLogTasksOptions): FullLogTasks {
  const minEvents = options.minEvents ?? DEFAULT_LEDGER_POOL_MIN_EVENTS;
  if (!Number.isSafeInteger(minEvents) || minEvents < 0) {
    throw new DcpConfigError(
      'fullLogTasks.minEvents',
      `must be a safe integer >= 0, got ${JSON.stringify(minEvents) ?? String(minEvents)}`,
    );
  }
  const catchUpSliceMs = options.catchUpSliceMs ?? DEFAULT_CATCH_UP_SLICE_MS;
  if (typeof catchUpSliceMs !== 'number' || !Number.isFinite(catchUpSliceMs) || catchUpSliceMs <= 0) {
    throw new DcpConfigError(
      'fullLogTasks.catchUpSliceMs',
      `must be a finite number > 0, got ${JSON.stringify(catchUpSliceMs) ?? String(catchUpSliceMs)}`,
    );
  }
  if (typeof (options.runner as Partial<TaskRunner> | undefined)?.run !== 'function') {
    throw new DcpConfigError('fullLogTasks.runner', 'must be a task runner (for example a WorkerPool)');
  }
  return { runner: options.runner, minEvents, liveLogs: options.liveLogs ?? new LiveLogTracker(), catchUpSliceMs };
}

/** A session as the ledger service reads it: a live session whose events are the stored log. */
export interface LedgerSession extends LiveSession {
  readonly events: readonly SessionEvent[];
}

/** Computes `/dcp stats` folds for every session of one DCP runtime. */
export class LedgerService {
  readonly #tasks: FullLogTasks | undefined;
  readonly #logger: PluginLogger;
  /** Folds answered by the pool and on the calling thread; for tests and diagnostics. */
  readonly runs = { pool: 0, inThread: 0, poolFailures: 0 };
  /** Sessions whose byte log this service started to keep. */
  readonly #followed = new WeakSet<LedgerSession>();

  /** Without `tasks` every fold runs on the calling thread. */
  constructor(tasks: FullLogTasks | undefined, logger: PluginLogger) {
    this.#tasks = tasks;
    this.#logger = logger;
  }

  /**
   * Starts encoding `session`'s byte log once it is large enough to be folded by the pool, so that later captures
   * are O(1) and each event is encoded once, when it is appended. A session met with a long log is encoded in
   * slices, off the critical path. Cheap to call on every append.
   */
  follow(session: LedgerSession): void {
    const tasks = this.#tasks;
    if (tasks === undefined || session.events.length < tasks.minEvents || this.#followed.has(session)) return;
    this.#followed.add(session);
    tasks.liveLogs.trackGradually(session, tasks.catchUpSliceMs)?.catch((error: unknown) => {
      // The next capture rebuilds the log synchronously and reports a persistent failure there.
      this.#logger.warn(`DCP could not encode the session log for stats tasks: ${errorMessage(error)}`, error);
    });
  }

  /** Stops keeping `session`'s byte log (a session its host disposed). */
  forget(session: LedgerSession): void {
    this.#followed.delete(session);
    this.#tasks?.liveLogs.untrack(session);
  }

  /**
   * The fold of `session`'s log. When the byte log is current (the usual case) the capture, or the in-thread fold, is
   * taken synchronously, before the first await, so the result describes exactly `session.events.length` events even
   * if the session grows meanwhile; while a first catch-up is still running, the capture waits for it and may cover
   * a few more events (the result's `eventCount` says how many). A pool failure falls back to the calling thread and
   * is logged: stats never fail for lack of a worker.
   */
  fold(session: LedgerSession, windows: readonly LedgerWindow[]): Promise<LedgerFold> {
    const tasks = this.#tasks;
    if (tasks === undefined || session.events.length < tasks.minEvents) return Promise.resolve(this.#inThread(session.events, windows));
    this.#followed.add(session);
    const pending = tasks.liveLogs.trackGradually(session, tasks.catchUpSliceMs);
    if (pending === undefined) return this.#onPool(tasks, session, windows);
    return pending.then(() => this.#onPool(tasks, session, windows));
  }

  /** Captures the byte log now and folds it on the runner. */
  #onPool(tasks: FullLogTasks, session: LedgerSession, windows: readonly LedgerWindow[]): Promise<LedgerFold> {
    const log = tasks.liveLogs.capture(session);
    return tasks.runner.run('dcpLedger', { log, windows }).then(
      (value) => {
        this.runs.pool += 1;
        return value;
      },
      (error: unknown) => {
        if (!(error instanceof SessionPoolError)) throw error;
        this.runs.poolFailures += 1;
        this.#logger.warn(`DCP stats folded on the main thread: the worker pool failed (${errorMessage(error)})`, error);
        return this.#inThread(session.events.slice(0, log.events), windows);
      },
    );
  }

  #inThread(events: readonly SessionEvent[], windows: readonly LedgerWindow[]): LedgerFold {
    this.runs.inThread += 1;
    return foldLedger(events, windows);
  }
}
