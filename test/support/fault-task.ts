/**
 * The tests' fault-injection task `testFault`: echoes, spins until aborted, kills its thread, stalls (never
 * settling, spinning without polling, blocked in a FIFO read) or acknowledges an abort late, so the fault tests can
 * exercise the pool against real worker threads. It lives under test/: only the tests' worker entry
 * (`fault-worker-entry.ts`) and runners built with {@link FAULT_ENTRY} serve it; production's entry, `TASK_KINDS`
 * and task validation know nothing of it.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { threadId } from 'node:worker_threads';
import type { InThreadTaskRunner } from '../../src/main/engine/pool/in-thread-runner.js';
import type { ExtraTaskRunner, TaskRunner } from '../../src/main/engine/pool/task-runner.js';
import type { WorkerEntry } from '../../src/main/engine/pool/worker-entry.js';
import type { WorkerPool } from '../../src/main/engine/pool/worker-pool.js';
import { assertNever } from '../../src/protocol/assert-never.js';
import { isRecord } from '../../src/protocol/record-guard.js';
import type { TaskControl } from '../../src/workers/tasks/task-control.js';
import { runTask } from '../../src/workers/tasks/task-request.js';
import type { TaskReply, TaskRequest } from '../../src/workers/tasks/task-request.js';

/** What the `testFault` task does. */
export type TestFaultMode =
  /** Returns `value` after `delayMs`. */
  | 'echo'
  /** Busy-polls its control port until aborted (proves the abort reaches a running task). */
  | 'spin'
  /** Calls `process.exit(7)` inside the worker. */
  | 'exit'
  /** Throws from a timer, an uncaught exception that kills the thread. */
  | 'uncaught'
  /** Never settles and ignores aborts (a worker stuck in a system call). */
  | 'stall'
  /** Spins synchronously and never polls its port: only terminating the thread stops it. */
  | 'busyLoop'
  /**
   * Opens `path` (a FIFO) in blocking mode and reads one byte: the thread blocks in `open(2)`/`read(2)`
   * until a writer opens the FIFO and closes it.
   */
  | 'blockingRead'
  /** Waits for the abort, then takes `delayMs` to wind down before settling with the abort error. */
  | 'lateAck';

/** The payload of a `testFault` task. */
export interface TestFaultPayload {
  readonly mode: TestFaultMode;
  readonly delayMs?: number;
  readonly value?: string;
  /** The FIFO of `blockingRead`. */
  readonly path?: string;
}

/** The value of a `testFault` task. */
export interface TestFaultValue {
  readonly value: string;
  /** The worker's thread id (0 in-thread), so tests can tell threads apart. */
  readonly threadId: number;
}

/** The task kinds the fault entry adds to production's. */
export type FaultTasks = { readonly testFault: { readonly payload: TestFaultPayload; readonly value: TestFaultValue } };

/** A runner that serves production's kinds and `testFault`. */
export type FaultRunner = TaskRunner & ExtraTaskRunner<FaultTasks>;

/** A real pool serving `testFault`. */
export type FaultPool = WorkerPool<FaultTasks>;

/** An in-thread runner serving `testFault`. */
export type FaultInThreadRunner = InThreadTaskRunner<FaultTasks>;

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
    default:
      assertNever(payload.mode, 'unknown test fault');
  }
}

/** Runs one `testFault` task. */
export function testFaultTask(request: TaskRequest<TestFaultPayload>): Promise<TaskReply<TestFaultValue>> {
  return runTask(request, testFaultWork);
}

/** True for a `testFault` value (the pool checks worker replies of this kind as it checks production's). */
export function isTestFaultValue(value: unknown): boolean {
  return isRecord(value) && typeof value['value'] === 'string' && typeof value['threadId'] === 'number';
}

/**
 * The tests' worker entry: `fault-worker-entry.js` next to this module (production's tasks plus `testFault`), and
 * `testFault` for the pool's reply checks and the in-thread runner.
 */
export const FAULT_ENTRY: WorkerEntry<FaultTasks> = {
  filename: new URL('./fault-worker-entry.js', import.meta.url).href,
  extraKinds: { testFault: { isValue: isTestFaultValue, task: testFaultTask } },
};
