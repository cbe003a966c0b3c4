/**
 * The no-workers fallback and the deterministic test double of {@link WorkerPool}: the same task
 * functions, the same control ports and the same outcome validation, run on the calling thread.
 * Synchronous stages then block this thread, which is why the hot path uses the pool.
 */
import type { MessagePort } from 'node:worker_threads';
import { assertNever } from '../../../protocol/assert-never.js';
import { SessionPoolError } from '../../../protocol/wire/pool-errors.js';
import { isTaskKind } from '../../../protocol/wire/task-shapes.js';
import type { TaskKind, TaskPayloads, TaskTable, TaskValues } from '../../../protocol/wire/task-shapes.js';
import { dcpLedgerTask } from '../../../workers/tasks/dcp-ledger.js';
import { searchDocumentsTask } from '../../../workers/tasks/search-documents-task.js';
import { inspectTask } from '../../../workers/tasks/inspect-log.js';
import { observeTitlesTask } from '../../../workers/tasks/observe-titles.js';
import { readSourceTask } from '../../../workers/tasks/read-source.js';
import type { TaskReply } from '../../../workers/tasks/task-request.js';
import { runWithControlPort } from './control-channel.js';
import { resolvePoolConfig } from './pool-config.js';
import type { PoolConfigInput } from './pool-config.js';
import type { ExtraTaskRunner, TaskRunOptions, TaskRunner } from './task-runner.js';
import { extraKind, refuseUnservedKind, settleReply } from './worker-entry.js';
import type { WorkerEntry } from './worker-entry.js';

/** Runs stage tasks on the calling thread: production's, plus the extra kinds of a {@link WorkerEntry} when given. */
export class InThreadTaskRunner<X extends TaskTable = Record<never, never>> implements TaskRunner, ExtraTaskRunner<X> {
  readonly #entry: WorkerEntry<X> | undefined;
  #closed = false;

  /**
   * `size` and `abortGraceMs` are validated and ignored (the calling thread cannot be terminated, so an aborted
   * task here is only ever left to settle on its own).
   *
   * @param options - the pool configuration, validated as the pool validates it.
   * @param entry - a worker entry with more task kinds (tests only); its `filename` is not loaded here, its
   *   extra kinds' task functions are called directly.
   */
  constructor(options: PoolConfigInput = {}, entry?: WorkerEntry<X>) {
    resolvePoolConfig(options);
    this.#entry = entry;
  }

  /** See {@link TaskRunner.run}. */
  run<K extends TaskKind>(kind: K, payload: TaskPayloads[K], options?: TaskRunOptions): Promise<TaskValues[K]>;
  run<K extends keyof X & string>(kind: K, payload: X[K]['payload'], options?: TaskRunOptions): Promise<X[K]['value']>;
  run(kind: string, payload: unknown, options: TaskRunOptions = {}): Promise<unknown> {
    if (this.#closed) return Promise.reject(new SessionPoolError('SESSION_POOL_CLOSED', 'the session task runner is closed'));
    const refused = refuseUnservedKind(this.#entry, kind);
    if (refused !== undefined) return refused;
    return runWithControlPort(
      // A macrotask hop first, as with a real pool: the caller's synchronous code finishes before the stages run.
      (control) =>
        new Promise((resolve) => setImmediate(resolve)).then(() => this.#dispatch(kind, payload, control)).then((answer) => answer.outcome),
      (reply) => settleReply(kind, payload, reply, this.#entry),
      options.signal,
    );
  }

  /** Marks the runner closed. */
  close(): Promise<void> {
    this.#closed = true;
    return Promise.resolve();
  }

  #dispatch(kind: string, payload: unknown, control: MessagePort): Promise<TaskReply<unknown>> {
    if (isTaskKind(kind)) return dispatchProduction(kind, payload, control);
    // refuseUnservedKind ran in run(): an unknown kind never gets here.
    const extra = extraKind(this.#entry, kind) as NonNullable<ReturnType<typeof extraKind>>;
    return extra.task({ payload, control });
  }
}

/** Calls the production task function of `kind`. */
function dispatchProduction(kind: TaskKind, payload: unknown, control: MessagePort): Promise<TaskReply<unknown>> {
  switch (kind) {
    case 'readSource':
      return readSourceTask({ payload: payload as TaskPayloads['readSource'], control });
    case 'inspect':
      return inspectTask({ payload: payload as TaskPayloads['inspect'], control });
    case 'observeTitles':
      return observeTitlesTask({ payload: payload as TaskPayloads['observeTitles'], control });
    case 'dcpLedger':
      return dcpLedgerTask({ payload: payload as TaskPayloads['dcpLedger'], control });
    case 'searchDocuments':
      return searchDocumentsTask({ payload: payload as TaskPayloads['searchDocuments'], control });
    default:
      return assertNever(kind, 'unknown task kind');
  }
}
