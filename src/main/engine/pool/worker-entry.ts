/**
 * Which task kinds a runner serves and how their replies are settled. Production's kinds are `TASK_KINDS`, served
 * by `src/workers/entry.ts`; a {@link WorkerEntry} names another entry module that serves production's kinds plus
 * kinds of its own (the tests' fault-injection entry under `test/support/`), with the value check and task
 * function of each extra kind, so that nothing test-only ships in `src/`.
 */
import { SessionPoolError } from '../../../protocol/wire/pool-errors.js';
import { isTaskKind } from '../../../protocol/wire/task-shapes.js';
import type { TaskKind, TaskOutcome, TaskPayloads, TaskTable } from '../../../protocol/wire/task-shapes.js';
import { validateOutcomeWith, validateTaskOutcome } from '../../../protocol/wire/task-validation.js';
import { rebuildError } from '../../../protocol/wire/wire-error.js';
import type { TaskReply, TaskRequest } from '../../../workers/tasks/task-request.js';

/** One task kind beyond production's. */
export interface ExtraTaskKind<P, V> {
  /** True when a successful outcome's value has this kind's shape (worker replies are checked like production's). */
  readonly isValue: (value: unknown) => boolean;
  /** The task function, which the in-thread runner calls directly. */
  task(request: TaskRequest<P>): Promise<TaskReply<V>>;
}

/** Each kind of a table of extra kinds with its {@link ExtraTaskKind}. */
export type ExtraTaskKinds<X extends TaskTable> = {
  readonly [K in keyof X & string]: ExtraTaskKind<X[K]['payload'], X[K]['value']>;
};

/** A worker entry other than production's: a module serving every production kind and the kinds of `extraKinds`. */
export interface WorkerEntry<X extends TaskTable> {
  /** The compiled entry module, as piscina's `filename` (a `file:` URL or an absolute path). */
  readonly filename: string;
  readonly extraKinds: ExtraTaskKinds<X>;
}

/** The extra kind `kind` of `entry`, or `undefined` when the entry has no such kind. */
export function extraKind(entry: WorkerEntry<TaskTable> | undefined, kind: string): ExtraTaskKind<unknown, unknown> | undefined {
  if (entry === undefined || !Object.hasOwn(entry.extraKinds, kind)) return undefined;
  return (entry.extraKinds as Readonly<Record<string, ExtraTaskKind<unknown, unknown>>>)[kind];
}

/** The refusal of a kind the runner does not serve. */
function unknownKindError(kind: string): SessionPoolError {
  return new SessionPoolError('SESSION_POOL_UNKNOWN_TASK', `the session task runner serves no ${JSON.stringify(kind)} task`);
}

/**
 * A run of `kind` refused before any thread runs anything, unless `kind` is production's or one of `entry`'s extra
 * kinds (JavaScript callers can name anything): the rejected promise to return, else `undefined`.
 *
 * @returns a promise rejected with SessionPoolError `SESSION_POOL_UNKNOWN_TASK`, or `undefined` for a served kind.
 */
export function refuseUnservedKind(entry: WorkerEntry<TaskTable> | undefined, kind: string): Promise<never> | undefined {
  return isTaskKind(kind) || extraKind(entry, kind) !== undefined ? undefined : Promise.reject(unknownKindError(kind));
}

/** The number of items a task kind must answer for, when it answers per item. */
function expectedItems(kind: TaskKind, payload: unknown): number | undefined {
  if (kind === 'observeTitles') return (payload as TaskPayloads['observeTitles']).files.length;
  if (kind === 'dcpLedger') return (payload as TaskPayloads['dcpLedger']).windows.length;
  return undefined;
}

/**
 * Turns a worker reply into the task's value, or throws its rebuilt failure.
 *
 * @param kind - the task kind that was run.
 * @param payload - its payload (kinds that answer per item must answer for every one).
 * @param reply - what the task function returned.
 * @param entry - the runner's worker entry, when it is not production's.
 * @returns the task's value.
 * @throws SessionPoolError `SESSION_POOL_PROTOCOL` for a malformed reply, `SESSION_POOL_UNKNOWN_TASK` for a kind
 *   not served; else the task's own failure, rebuilt.
 */
export function settleReply(kind: string, payload: unknown, reply: unknown, entry?: WorkerEntry<TaskTable>): unknown {
  let outcome: TaskOutcome<unknown>;
  if (isTaskKind(kind)) {
    outcome = validateTaskOutcome(kind, reply, expectedItems(kind, payload));
  } else {
    const extra = extraKind(entry, kind);
    if (extra === undefined) throw unknownKindError(kind);
    outcome = validateOutcomeWith<unknown>(kind, reply, extra.isValue);
  }
  if (outcome.ok) return outcome.value;
  throw rebuildError(outcome.error);
}
