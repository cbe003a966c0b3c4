/**
 * How a worker entry serves one task: tell the caller on the control port that the task started (so the abort
 * grace period never counts queue time), run the task function, and hand its outcome to piscina, moving the
 * buffers inside it instead of cloning them. The production entry and any other entry (the tests' fault entry)
 * serve their tasks through this one function.
 */
import { move, transferableSymbol, valueSymbol } from 'piscina';
import { TASK_STARTED_MESSAGE } from '../protocol/wire/task-shapes.js';
import type { TaskOutcome } from '../protocol/wire/task-shapes.js';
import type { TaskReply, TaskRequest } from './tasks/task-request.js';

/** Hands a reply to piscina: the bare outcome, or a movable wrapper that transfers its buffers. */
function reply<V>(answer: TaskReply<V>): TaskOutcome<V> {
  if (answer.transfer.length === 0) return answer.outcome;
  const movable = { [transferableSymbol]: [...answer.transfer], [valueSymbol]: answer.outcome };
  return move(movable as never) as unknown as TaskOutcome<V>;
}

/**
 * Serves one posted request with `task`.
 *
 * @param request - the payload and control port piscina delivered.
 * @param task - the task function (it never throws: failures are outcome data).
 * @returns the outcome for piscina to post back.
 */
export async function serveTask<P, V>(
  request: TaskRequest<P>,
  task: (request: TaskRequest<P>) => Promise<TaskReply<V>>,
): Promise<TaskOutcome<V>> {
  request.control?.postMessage(TASK_STARTED_MESSAGE);
  return reply(await task(request));
}
