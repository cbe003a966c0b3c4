/**
 * The seam between the main-thread actors and the stage pool: run one task kind with a payload, get its
 * value or its rebuilt failure. The piscina pool and the in-thread fallback both implement it.
 */
import type { TaskKind, TaskPayloads, TaskTable, TaskValues } from '../../../protocol/wire/task-shapes.js';

/** Per-call options of {@link TaskRunner.run}. */
export interface TaskRunOptions {
  /**
   * The caller's signal. It is never handed to the pool: on abort the runner posts `{type:'abort'}` on
   * the task's control port and rejects at once with `signal.reason`; a late result is dropped. The
   * worker pool terminates and replaces the thread of a task that has not settled within its
   * `abortGraceMs` of the abort.
   */
  readonly signal?: AbortSignal;
  /** Buffers of the payload to transfer instead of cloning (they become unusable on this side). */
  readonly transferList?: readonly ArrayBuffer[];
}

/** Runs stage tasks. */
export interface TaskRunner {
  /**
   * Runs a `kind` task. Resolves with its value; rejects with the task's failure rebuilt with the same
   * name, message, code and cause (SESSION-LOG.md §10.6 rule 4), `SessionPoolError` for pipeline
   * failures, or `signal.reason` at once when the signal aborts.
   */
  run<K extends TaskKind>(kind: K, payload: TaskPayloads[K], options?: TaskRunOptions): Promise<TaskValues[K]>;
  /** Stops accepting tasks and releases threads. Idempotent. */
  close(): Promise<void>;
}

/**
 * What a runner given a worker entry with kinds of its own (the tests' fault entry) runs besides production's kinds:
 * the same contract as {@link TaskRunner.run}, for the kinds of `X`.
 */
export interface ExtraTaskRunner<X extends TaskTable> {
  /** Runs a task of one of the extra kinds; see {@link TaskRunner.run}. */
  run<K extends keyof X & string>(kind: K, payload: X[K]['payload'], options?: TaskRunOptions): Promise<X[K]['value']>;
}
