/**
 * The no-workers fallback and the deterministic test double of {@link WorkerPool}: the same task
 * functions, the same control ports and the same outcome validation, run on the calling thread.
 * Synchronous stages then block this thread, which is why the hot path uses the pool.
 */
import type { MessagePort } from 'node:worker_threads';
import { SessionPoolError } from '../../protocol/wire/pool-errors.js';
import type { TaskKind, TaskPayloads, TaskValues } from '../../protocol/wire/task-shapes.js';
import { dcpLedgerTask } from '../../workers/tasks/dcp-ledger.js';
import { inspectTask } from '../../workers/tasks/inspect-log.js';
import { observeTitlesTask } from '../../workers/tasks/observe-titles.js';
import { readSourceTask } from '../../workers/tasks/read-source.js';
import type { TaskReply } from '../../workers/tasks/task-request.js';
import { testFaultTask } from '../../workers/tasks/test-fault.js';
import { runWithControlPort } from './control-channel.js';
import { resolvePoolConfig } from './pool-config.js';
import type { PoolConfigInput } from './pool-config.js';
import type { TaskRunOptions, TaskRunner } from './task-runner.js';
import { settleReply } from './worker-pool.js';

/** Runs stage tasks on the calling thread. */
export class InThreadTaskRunner implements TaskRunner {
  readonly #allowTestTasks: boolean;
  #closed = false;

  /**
   * `allowTestTasks` as for the pool; `size` and `abortGraceMs` are validated and ignored (the calling
   * thread cannot be terminated, so an aborted task here is only ever left to settle on its own).
   */
  constructor(options: PoolConfigInput = {}) {
    this.#allowTestTasks = resolvePoolConfig(options).allowTestTasks;
  }

  /** See {@link TaskRunner.run}. */
  run<K extends TaskKind>(kind: K, payload: TaskPayloads[K], options: TaskRunOptions = {}): Promise<TaskValues[K]> {
    if (this.#closed) return Promise.reject(new SessionPoolError('SESSION_POOL_CLOSED', 'the session task runner is closed'));
    return runWithControlPort(
      // A macrotask hop first, as with a real pool: the caller's synchronous code finishes before the stages run.
      (control) => new Promise((resolve) => setImmediate(resolve)).then(() => this.#dispatch(kind, payload, control)).then((answer) => answer.outcome),
      (reply) => settleReply(kind, payload, reply),
      options.signal,
    );
  }

  /** Marks the runner closed. */
  close(): Promise<void> {
    this.#closed = true;
    return Promise.resolve();
  }

  #dispatch<K extends TaskKind>(kind: K, payload: TaskPayloads[K], control: MessagePort): Promise<TaskReply<unknown>> {
    const kindName: TaskKind = kind;
    switch (kindName) {
      case 'readSource':
        return readSourceTask({ payload: payload as TaskPayloads['readSource'], control });
      case 'inspect':
        return inspectTask({ payload: payload as TaskPayloads['inspect'], control });
      case 'observeTitles':
        return observeTitlesTask({ payload: payload as TaskPayloads['observeTitles'], control });
      case 'dcpLedger':
        return dcpLedgerTask({ payload: payload as TaskPayloads['dcpLedger'], control });
      case 'testFault':
        return testFaultTask({ payload: payload as TaskPayloads['testFault'], control }, this.#allowTestTasks);
      default: {
        const unreachable: never = kindName;
        throw new TypeError(`unknown task kind ${String(unreachable)}`);
      }
    }
  }
}
