/**
 * A task runner built at its first task. The engine's runner is a worker pool (piscina and the wire codec) or the
 * in-thread runner (every task module); a command that answers from the title index and the caches — `sessions` on a
 * warm root — runs no task at all, so it should not pay for loading either (issue 26, start-up).
 */
import { SessionPoolError } from '../../../protocol/wire/pool-errors.js';
import type { TaskKind, TaskPayloads, TaskValues } from '../../../protocol/wire/task-shapes.js';
import type { TaskRunOptions, TaskRunner } from './task-runner.js';

/** A {@link TaskRunner} that loads and builds the real one when the first task arrives. */
export class DeferredTaskRunner implements TaskRunner {
  readonly #build: () => Promise<TaskRunner>;
  #runner: Promise<TaskRunner> | undefined;
  #resolved: TaskRunner | undefined;
  #closed = false;

  /**
   * @param build - loads the runner's module and builds it; called at most once, by the first task. The runner's
   *   configuration should be validated before this runner is made, so a bad option fails where it was given.
   */
  constructor(build: () => Promise<TaskRunner>) {
    this.#build = build;
  }

  /** The real runner once its first task built it (diagnostics: a pool's threads), else `undefined`. */
  get built(): TaskRunner | undefined {
    return this.#resolved;
  }

  /** See {@link TaskRunner.run}; after {@link close}, rejects with `SESSION_POOL_CLOSED` like a closed pool. */
  run<K extends TaskKind>(kind: K, payload: TaskPayloads[K], options?: TaskRunOptions): Promise<TaskValues[K]> {
    if (this.#closed) return Promise.reject(new SessionPoolError('SESSION_POOL_CLOSED', 'the session worker pool is closed'));
    this.#runner ??= this.#build().then((runner) => {
      this.#resolved = runner;
      return runner;
    });
    return this.#runner.then((runner) => runner.run(kind, payload, options));
  }

  /** Closes the real runner if one was built (after it finished building); idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    const runner = await this.#runner?.catch(() => undefined);
    await runner?.close();
  }
}
