/**
 * The stage pool (ARCHITECTURE.md §2): a lazily created piscina pool of `min(3, cores)` warm threads
 * running the task functions of `src/workers/entry.ts`. Cancellation is message passing only — the
 * caller's `AbortSignal` never reaches piscina, which would terminate the thread and cost a respawn — and
 * a thread that dies fails only the task it was running; piscina starts a replacement for the next call.
 */
import { Piscina } from 'piscina';
import type { Worker } from 'node:worker_threads';
import { SessionPoolError } from '../../protocol/wire/pool-errors.js';
import { TEST_TASKS_WORKER_DATA_KEY } from '../../protocol/wire/task-shapes.js';
import type { TaskKind, TaskPayloads, TaskValues } from '../../protocol/wire/task-shapes.js';
import { validateTaskOutcome } from '../../protocol/wire/task-validation.js';
import { rebuildError } from '../../protocol/wire/wire-error.js';
import { runWithControlPort } from './control-channel.js';
import { resolvePoolConfig } from './pool-config.js';
import type { PoolConfig, PoolConfigInput } from './pool-config.js';
import type { TaskRunOptions, TaskRunner } from './task-runner.js';

/** The compiled worker entry, next to this module's compiled folder (dist/src/main/pool → dist/src/workers). */
const ENTRY_URL = new URL('../../workers/entry.js', import.meta.url).href;

/** How long `close()` lets running tasks finish before terminating their threads. */
const CLOSE_GRACE_MS = 2000;

/** The number of items a task kind must answer for, when it answers per item. */
function expectedItems<K extends TaskKind>(kind: K, payload: TaskPayloads[K]): number | undefined {
  if (kind === 'observeTitles') return (payload as TaskPayloads['observeTitles']).files.length;
  if (kind === 'dcpLedger') return (payload as TaskPayloads['dcpLedger']).windows.length;
  return undefined;
}

/** Turns a validated worker reply into the task's value, or throws its rebuilt failure. */
export function settleReply<K extends TaskKind>(kind: K, payload: TaskPayloads[K], reply: unknown): TaskValues[K] {
  const outcome = validateTaskOutcome(kind, reply, expectedItems(kind, payload));
  if (outcome.ok) return outcome.value;
  throw rebuildError(outcome.error);
}

/** The piscina-backed {@link TaskRunner}. */
export class WorkerPool implements TaskRunner {
  /** The validated configuration. */
  readonly config: PoolConfig;
  #piscina: Piscina | undefined;
  #closing: Promise<void> | undefined;
  #lastPoolError: unknown;

  /** Validates the configuration (`SESSION_POOL_INVALID_CONFIG`); no thread starts before the first task. */
  constructor(options: PoolConfigInput = {}) {
    this.config = resolvePoolConfig(options);
  }

  /** The live worker threads (empty before the first task and after `close()`). */
  get threads(): readonly Worker[] {
    return this.#piscina?.threads ?? [];
  }

  /** The last error piscina reported outside any task (a thread that died while idle), for diagnostics. */
  get lastPoolError(): unknown {
    return this.#lastPoolError;
  }

  /** See {@link TaskRunner.run}. A dead worker thread rejects with `SESSION_POOL_WORKER_FAILED`. */
  run<K extends TaskKind>(kind: K, payload: TaskPayloads[K], options: TaskRunOptions = {}): Promise<TaskValues[K]> {
    if (this.#closing !== undefined) return Promise.reject(new SessionPoolError('SESSION_POOL_CLOSED', 'the session worker pool is closed'));
    const piscina = this.#pool();
    const transferList = options.transferList ?? [];
    return runWithControlPort(
      (control) =>
        piscina.run({ payload, control }, { name: kind, transferList: [control, ...transferList] }).catch((error: unknown) => {
          throw this.#poolFailure(kind, error);
        }),
      (reply) => settleReply(kind, payload, reply),
      options.signal,
    );
  }

  /**
   * Closes the pool: queued tasks fail with `SESSION_POOL_CLOSED`, running ones get a grace period,
   * then every thread is terminated. Idempotent; later `run` calls reject.
   */
  close(): Promise<void> {
    this.#closing ??= this.#piscina === undefined ? Promise.resolve() : this.#piscina.close({ force: true });
    return this.#closing;
  }

  #pool(): Piscina {
    if (this.#piscina !== undefined) return this.#piscina;
    const piscina = new Piscina({
      filename: ENTRY_URL,
      minThreads: this.config.size,
      maxThreads: this.config.size,
      idleTimeout: Number.POSITIVE_INFINITY,
      atomics: 'async',
      closeTimeout: CLOSE_GRACE_MS,
      workerData: { [TEST_TASKS_WORKER_DATA_KEY]: this.config.allowTestTasks },
    });
    // Without a listener an 'error' event (a thread dying between tasks, a close timeout) would throw.
    piscina.on('error', (error: unknown) => {
      this.#lastPoolError = error;
    });
    this.#piscina = piscina;
    return piscina;
  }

  #poolFailure(kind: TaskKind, error: unknown): SessionPoolError {
    if (this.#closing !== undefined) return new SessionPoolError('SESSION_POOL_CLOSED', 'the session worker pool is closed', { cause: error });
    const detail = error instanceof Error ? error.message : String(error);
    return new SessionPoolError('SESSION_POOL_WORKER_FAILED', `worker thread failed while running a ${kind} task: ${detail}`, { cause: error });
  }
}
