/**
 * The stage pool (ARCHITECTURE.md §2): a lazily created piscina pool of `min(3, cores)` warm threads
 * running the task functions of `src/workers/entry.ts`. Cancellation is message passing only — the
 * caller's `AbortSignal` never reaches piscina, which would terminate the thread and cost a respawn — and
 * a thread that dies fails only the task it was running; piscina starts a replacement for the next call.
 * Aborts stay message passing, but an aborted task that has not settled within `abortGraceMs` (a thread
 * stuck in a system call or in a loop that never polls) is handed to piscina's own abort through an
 * internal per-task controller: piscina terminates that thread and starts a replacement, so stalls
 * never cost the pool its capacity.
 */
import { Piscina } from 'piscina';
import type { Worker } from 'node:worker_threads';
import { SessionPoolError } from '../../../protocol/wire/pool-errors.js';
import type { TaskKind, TaskPayloads, TaskTable, TaskValues } from '../../../protocol/wire/task-shapes.js';
import { runWithControlPort } from './control-channel.js';
import { resolvePoolConfig } from './pool-config.js';
import type { PoolConfig, PoolConfigInput } from './pool-config.js';
import type { ExtraTaskRunner, TaskRunOptions, TaskRunner } from './task-runner.js';
import { refuseUnservedKind, settleReply } from './worker-entry.js';
import type { WorkerEntry } from './worker-entry.js';

/** The compiled worker entry, next to this module's compiled folder (dist/src/main/engine/pool → dist/src/workers). */
const ENTRY_URL = new URL('../../../workers/entry.js', import.meta.url).href;

/** How long `close()` lets running tasks finish before terminating their threads. */
const CLOSE_GRACE_MS = 2000;

/**
 * How long `close()` waits for a starting thread to finish loading its entry module before it
 * terminates it anyway. Node 20 aborts the whole process (`v8::Module::IsGraphAsync … instantiated
 * module`) when a worker is terminated while its ES module graph is still being instantiated, so a
 * short-lived pool (a one-shot CLI call that used one of its threads) must let the others boot first.
 */
const BOOT_WAIT_MS = 10_000;

/** The key of piscina's "handler loaded" message (its `common.READY`), posted once per thread on its parent port. */
const PISCINA_READY_KEY = '_WORKER_READY';

/** Counters of {@link WorkerPool} for diagnostics and tests. */
export interface WorkerPoolStats {
  /** Aborted tasks that had not settled when their grace period ended. */
  readonly abortGraceExpiries: number;
  /** Threads terminated (and replaced) because the aborted task they ran outlived its grace period. */
  readonly reclaimedWorkers: number;
  /**
   * Reclaimed threads that have not exited yet. Termination stops JavaScript, not a blocking system
   * call: a thread stuck in `read(2)` leaves the pool at once but ends only when the call returns.
   */
  readonly lingeringThreads: number;
  /** Threads that became ready, the first `size` included. */
  readonly workersStarted: number;
  /** Threads started to replace reclaimed or crashed ones: `workersStarted − size`, never negative. */
  readonly respawns: number;
}

/**
 * The piscina-backed {@link TaskRunner}: production's task kinds, served by `src/workers/entry.ts`, unless a
 * {@link WorkerEntry} with kinds of its own is given (the tests' fault entry).
 */
export class WorkerPool<X extends TaskTable = Record<never, never>> implements TaskRunner, ExtraTaskRunner<X> {
  /** The validated configuration. */
  readonly config: PoolConfig;
  readonly #entry: WorkerEntry<X> | undefined;
  #piscina: Piscina | undefined;
  #closing: Promise<void> | undefined;
  #lastPoolError: unknown;
  #abortGraceExpiries = 0;
  #reclaimedWorkers = 0;
  #lingeringThreads = 0;
  #workersStarted = 0;
  /** Boot settlements of the first `size` threads that have not loaded their entry module yet. */
  readonly #booting = new Set<Promise<void>>();

  /**
   * Validates the configuration (`SESSION_POOL_INVALID_CONFIG`); no thread starts before the first task.
   *
   * @param options - the pool configuration.
   * @param entry - another worker entry than production's, serving more task kinds (tests only).
   */
  constructor(options: PoolConfigInput = {}, entry?: WorkerEntry<X>) {
    this.config = resolvePoolConfig(options);
    this.#entry = entry;
  }

  /** The live worker threads (empty before the first task and after `close()`). */
  get threads(): readonly Worker[] {
    return this.#piscina?.threads ?? [];
  }

  /** The last error piscina reported outside any task (a thread that died while idle), for diagnostics. */
  get lastPoolError(): unknown {
    return this.#lastPoolError;
  }

  /** The pool's counters (a fresh snapshot per read). */
  get stats(): WorkerPoolStats {
    return {
      abortGraceExpiries: this.#abortGraceExpiries,
      reclaimedWorkers: this.#reclaimedWorkers,
      lingeringThreads: this.#lingeringThreads,
      workersStarted: this.#workersStarted,
      respawns: Math.max(0, this.#workersStarted - this.config.size),
    };
  }

  /**
   * See {@link TaskRunner.run}. A dead worker thread rejects with `SESSION_POOL_WORKER_FAILED`. With a
   * signal, the task also gets an internal piscina-level controller (never the caller's signal), aborted
   * only when the task leaves the abort message unanswered for `abortGraceMs`.
   */
  run<K extends TaskKind>(kind: K, payload: TaskPayloads[K], options?: TaskRunOptions): Promise<TaskValues[K]>;
  run<K extends keyof X & string>(kind: K, payload: X[K]['payload'], options?: TaskRunOptions): Promise<X[K]['value']>;
  run(kind: string, payload: unknown, options: TaskRunOptions = {}): Promise<unknown> {
    if (this.#closing !== undefined)
      return Promise.reject(new SessionPoolError('SESSION_POOL_CLOSED', 'the session worker pool is closed'));
    const refused = refuseUnservedKind(this.#entry, kind);
    if (refused !== undefined) return refused;
    const piscina = this.#pool();
    const transferList = options.transferList ?? [];
    // A task without a signal can never be aborted, so it needs no reclaim controller.
    const reclaim = options.signal === undefined ? undefined : new AbortController();
    return runWithControlPort(
      (control) =>
        piscina
          .run(
            { payload, control },
            { name: kind, transferList: [control, ...transferList], ...(reclaim === undefined ? {} : { signal: reclaim.signal }) },
          )
          .catch((error: unknown) => {
            throw this.#poolFailure(kind, error);
          }),
      (reply) => settleReply(kind, payload, reply, this.#entry),
      options.signal,
      reclaim === undefined ? undefined : { graceMs: this.config.abortGraceMs, expired: () => this.#reclaim(piscina, reclaim) },
    );
  }

  /**
   * Closes the pool: queued tasks fail with `SESSION_POOL_CLOSED`, running ones get a grace period,
   * then every thread is terminated. Idempotent; later `run` calls reject.
   */
  close(): Promise<void> {
    const piscina = this.#piscina;
    this.#closing ??= piscina === undefined ? Promise.resolve() : this.#afterBoot().then(() => piscina.close({ force: true }));
    return this.#closing;
  }

  /** Settles when every starting thread has loaded its entry module (or exited), or after `BOOT_WAIT_MS`. */
  async #afterBoot(): Promise<void> {
    if (this.#booting.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, BOOT_WAIT_MS);
    });
    await Promise.race([Promise.all([...this.#booting]), deadline]);
    clearTimeout(timer);
  }

  /** Watches a thread started with the pool until it reports that its entry module is loaded, or exits. */
  #watchBoot(thread: Worker): void {
    const booted = new Promise<void>((resolve) => {
      const done = (): void => {
        thread.off('message', onMessage);
        thread.off('exit', done);
        thread.off('error', done);
        resolve();
      };
      const onMessage = (message: unknown): void => {
        if (typeof message === 'object' && message !== null && PISCINA_READY_KEY in message) done();
      };
      thread.on('message', onMessage);
      thread.once('exit', done);
      thread.once('error', done);
    });
    this.#booting.add(booted);
    void booted.then(() => this.#booting.delete(booted));
  }

  #pool(): Piscina {
    if (this.#piscina !== undefined) return this.#piscina;
    const piscina = new Piscina({
      filename: this.#entry?.filename ?? ENTRY_URL,
      minThreads: this.config.size,
      maxThreads: this.config.size,
      idleTimeout: Number.POSITIVE_INFINITY,
      atomics: 'async',
      closeTimeout: CLOSE_GRACE_MS,
    });
    // Without a listener an 'error' event (a thread dying between tasks, a close timeout) would throw.
    piscina.on('error', (error: unknown) => {
      this.#lastPoolError = error;
    });
    piscina.on('workerCreate', () => {
      this.#workersStarted += 1;
    });
    // piscina starts its first `size` threads inside its constructor and marks them ready before their
    // entry module has loaded; threads it starts later (replacements) are added only once ready.
    for (const thread of piscina.threads) this.#watchBoot(thread);
    this.#piscina = piscina;
    return piscina;
  }

  /**
   * The grace period of an aborted task ran out: piscina's abort terminates the thread running it and
   * starts a replacement (or drops the task from the queue if it never started). The caller was settled
   * when it aborted; piscina's rejection only reaches the absorbed settlement.
   */
  #reclaim(piscina: Piscina, reclaim: AbortController): void {
    this.#abortGraceExpiries += 1;
    const before = piscina.threads;
    reclaim.abort(
      new SessionPoolError('SESSION_POOL_TASK_ABORTED', `worker task did not acknowledge its abort within ${this.config.abortGraceMs} ms`),
    );
    // piscina removes the thread synchronously inside the abort; whichever thread left the pool was this task's.
    const after = new Set(piscina.threads);
    for (const thread of before) {
      if (after.has(thread)) continue;
      this.#reclaimedWorkers += 1;
      this.#lingeringThreads += 1;
      thread.once('exit', () => {
        this.#lingeringThreads -= 1;
      });
    }
  }

  #poolFailure(kind: string, error: unknown): SessionPoolError {
    if (this.#closing !== undefined)
      return new SessionPoolError('SESSION_POOL_CLOSED', 'the session worker pool is closed', { cause: error });
    const detail = error instanceof Error ? error.message : String(error);
    return new SessionPoolError('SESSION_POOL_WORKER_FAILED', `worker thread failed while running a ${kind} task: ${detail}`, {
      cause: error,
    });
  }
}
