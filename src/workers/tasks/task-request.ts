/**
 * What a task function receives and how it answers: the payload plus its control port in, an outcome
 * envelope out. Every failure, the abort included, becomes `{ok:false, error}` data so that nothing
 * but the outcome ever crosses the boundary (structured clone would strip error names and codes).
 */
import type { MessagePort } from 'node:worker_threads';
import type { TaskOutcome } from '../../protocol/wire/task-shapes.js';
import { serializeError } from '../../protocol/wire/wire-error.js';
import { TaskControl } from './task-control.js';

/** The message a task function receives: its payload and the worker end of its control channel. */
export interface TaskRequest<P> {
  readonly payload: P;
  /** Absent only for direct calls that cannot be aborted. */
  readonly control?: MessagePort;
}

/** A task's answer: the outcome, and the buffers inside it that should be transferred rather than copied. */
export interface TaskReply<V> {
  readonly outcome: TaskOutcome<V>;
  readonly transfer: readonly ArrayBuffer[];
}

/** A task's work: its value and, optionally, the buffers of that value to transfer. */
export type TaskWork<P, V> = (payload: P, control: TaskControl) => Promise<{ value: V; transfer?: readonly ArrayBuffer[] }>;

/**
 * Runs `work` with a {@link TaskControl} over the request's port and wraps its result or failure in an
 * outcome. The port is closed when the work settles.
 */
export async function runTask<P, V>(request: TaskRequest<P>, work: TaskWork<P, V>): Promise<TaskReply<V>> {
  const control = new TaskControl(request.control);
  const answer = async (): Promise<TaskReply<V>> => {
    // An abort that arrived while the task waited in the queue stops it before any work.
    control.poll();
    const { value, transfer = [] } = await work(request.payload, control);
    return { outcome: { ok: true, value }, transfer };
  };
  try {
    return await answer();
  } catch (error) {
    return { outcome: { ok: false, error: serializeError(error) }, transfer: [] };
  } finally {
    control.dispose();
  }
}
