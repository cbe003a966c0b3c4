/**
 * The test-only `testFault` task: echoes, spins until aborted, kills its thread, stalls (never settling,
 * spinning without polling, blocked in a FIFO read) or acknowledges an abort late, so the fault tests can
 * exercise the pool against real worker threads. It runs only where the pool was created
 * with `allowTestTasks` (passed to workers as `workerData`); anywhere else it fails with
 * `SESSION_POOL_TEST_TASK_REFUSED` before doing anything.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { threadId } from 'node:worker_threads';
import { SessionPoolError } from '../../protocol/wire/pool-errors.js';
import type { TestFaultPayload, TestFaultValue } from '../../protocol/wire/task-shapes.js';
import type { TaskControl } from './task-control.js';
import { runTask } from './task-request.js';
import type { TaskReply, TaskRequest } from './task-request.js';

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Resolves when `signal` aborts. */
function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

/**
 * Opens the FIFO without `O_NONBLOCK` and reads synchronously: the thread itself (not a libuv pool
 * thread, which every worker of the process shares) blocks in the system call, as a stalled read would.
 */
function blockingRead(path: string | undefined): string {
  if (path === undefined) throw new TypeError('test fault blockingRead needs a path');
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.alloc(1);
    return buffer.toString('latin1', 0, readSync(fd, buffer, 0, 1, null));
  } finally {
    closeSync(fd);
  }
}

async function testFaultWork(payload: TestFaultPayload, control: TaskControl): Promise<{ value: TestFaultValue }> {
  const value = payload.value ?? '';
  switch (payload.mode) {
    case 'echo':
      await sleep(payload.delayMs ?? 0);
      return { value: { value, threadId } };
    case 'spin':
      // A CPU-bound task: only the synchronous poll can stop it.
      for (;;) control.poll();
    case 'exit':
      process.exit(7);
    case 'uncaught':
      setTimeout(() => {
        throw new Error('test fault: uncaught exception in a worker');
      }, 0);
      await new Promise(() => undefined);
      return { value: { value, threadId } };
    case 'stall':
      // Never settles and never polls: a worker stuck in a system call.
      await new Promise(() => undefined);
      return { value: { value, threadId } };
    case 'busyLoop':
      // A stage stuck in a loop that never polls: only terminating the thread ends it.
      for (;;) {
        // The abort message is never read.
      }
    case 'blockingRead':
      return { value: { value: blockingRead(payload.path), threadId } };
    case 'lateAck':
      await aborted(control.signal);
      await sleep(payload.delayMs ?? 0);
      throw control.signal.reason;
    default: {
      const unreachable: never = payload.mode;
      throw new TypeError(`unknown test fault ${String(unreachable)}`);
    }
  }
}

/** Runs one `testFault` task when `allowed`, else answers with the refusal. */
export function testFaultTask(request: TaskRequest<TestFaultPayload>, allowed: boolean): Promise<TaskReply<TestFaultValue>> {
  return runTask(request, (payload, control) => {
    if (!allowed) throw new SessionPoolError('SESSION_POOL_TEST_TASK_REFUSED', 'test-only worker tasks are disabled in this pool');
    return testFaultWork(payload, control);
  });
}
