/**
 * The piscina worker entry (ARCHITECTURE.md §1–§2): one named export per task kind. Each takes the
 * posted request (payload and control port) and resolves to the task's outcome envelope; buffers inside
 * an outcome are moved to the caller with piscina's transfer protocol instead of being cloned. Each first
 * tells the caller on the control port that it started, so the abort grace period never counts queue time.
 */
import { workerData } from 'node:worker_threads';
import { move, transferableSymbol, valueSymbol } from 'piscina';
import { TASK_STARTED_MESSAGE, TEST_TASKS_WORKER_DATA_KEY } from '../protocol/wire/task-shapes.js';
import type {
  DcpLedgerPayload,
  DcpLedgerValue,
  InspectPayload,
  InspectValue,
  ObserveTitlesPayload,
  ObserveTitlesValue,
  ReadSourcePayload,
  ReadSourceValue,
  TaskOutcome,
  TestFaultPayload,
  TestFaultValue,
} from '../protocol/wire/task-shapes.js';
import { dcpLedgerTask } from './tasks/dcp-ledger.js';
import { inspectTask } from './tasks/inspect-log.js';
import { observeTitlesTask } from './tasks/observe-titles.js';
import { readSourceTask } from './tasks/read-source.js';
import type { TaskReply, TaskRequest } from './tasks/task-request.js';
import { testFaultTask } from './tasks/test-fault.js';

/** Tells the main side this task is now running on this thread (see `TaskStartedMessage`). */
function started(request: TaskRequest<unknown>): void {
  request.control?.postMessage(TASK_STARTED_MESSAGE);
}

/** Hands a reply to piscina: the bare outcome, or a movable wrapper that transfers its buffers. */
function reply<V>(answer: TaskReply<V>): TaskOutcome<V> {
  if (answer.transfer.length === 0) return answer.outcome;
  const movable = { [transferableSymbol]: [...answer.transfer], [valueSymbol]: answer.outcome };
  return move(movable as never) as unknown as TaskOutcome<V>;
}

/** `readSource`: read → fold → project → retain → serialise one reference source. */
export async function readSource(request: TaskRequest<ReadSourcePayload>): Promise<TaskOutcome<ReadSourceValue>> {
  started(request);
  return reply(await readSourceTask(request));
}

/** `inspect` (foldLog): a whole persisted inspection, events returned as transferred log entries. */
export async function inspect(request: TaskRequest<InspectPayload>): Promise<TaskOutcome<InspectValue>> {
  started(request);
  return reply(await inspectTask(request));
}

/** `observeTitles`: a batch of title observations. */
export async function observeTitles(request: TaskRequest<ObserveTitlesPayload>): Promise<TaskOutcome<ObserveTitlesValue>> {
  started(request);
  return reply(await observeTitlesTask(request));
}

/** `dcpLedger` (foldLog): the `/dcp stats` ledger of a live session's captured log. */
export async function dcpLedger(request: TaskRequest<DcpLedgerPayload>): Promise<TaskOutcome<DcpLedgerValue>> {
  started(request);
  return reply(await dcpLedgerTask(request));
}

/** `testFault`: fault injection for tests; refused unless the pool allows test tasks. */
export async function testFault(request: TaskRequest<TestFaultPayload>): Promise<TaskOutcome<TestFaultValue>> {
  started(request);
  const allowed = typeof workerData === 'object' && workerData !== null && (workerData as Record<string, unknown>)[TEST_TASKS_WORKER_DATA_KEY] === true;
  return reply(await testFaultTask(request, allowed));
}
