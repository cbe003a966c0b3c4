// The stage pool (ARCHITECTURE.md §2–§3, SESSION-LOG.md §10.6): lazy creation, validated size,
// message-passing abort before / while / after a task, late results dropped, a dying worker failing only
// its own task, a task kind the runner's entry does not serve refused before it runs (production's entry knows
// nothing of the tests' fault task), clean close.
import { getEventListeners } from 'node:events';
import { availableParallelism } from 'node:os';
import { afterAll, describe, expect, it } from 'vitest';
import { InThreadTaskRunner } from '../../../../src/main/engine/pool/in-thread-runner.js';
import { defaultPoolSize, resolvePoolConfig } from '../../../../src/main/engine/pool/pool-config.js';
import { WorkerPool } from '../../../../src/main/engine/pool/worker-pool.js';
import { SessionPoolError } from '../../../../src/protocol/wire/pool-errors.js';
import { TASK_KINDS } from '../../../../src/protocol/wire/task-shapes.js';
import { settle, trackUnhandledRejections, within } from '../reference/reference-builders.js';
import { FAULT_ENTRY } from '../../../support/fault-task.js';
import type { FaultRunner } from '../../../support/fault-task.js';

const pool = new WorkerPool({ size: 2 }, FAULT_ENTRY);
const inThread = new InThreadTaskRunner({}, FAULT_ENTRY);
afterAll(() => Promise.all([pool.close(), inThread.close()]));

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    (value) => {
      throw new Error(`expected a rejection, got ${JSON.stringify(value)}`);
    },
    (error: unknown) => error,
  );
}

function threadIds(target: typeof pool): number[] {
  return target.threads.map((thread) => thread.threadId).sort((a, b) => a - b);
}

describe('configuration', () => {
  it('defaults to min(3, available parallelism) threads', () => {
    expect(defaultPoolSize()).toBe(Math.min(3, availableParallelism()));
    expect(resolvePoolConfig()).toEqual({ size: Math.min(3, availableParallelism()), abortGraceMs: 1000 });
  });

  it('rejects a size that is not a positive safe integer up to four per core', () => {
    const cores = availableParallelism();
    const expected = new SessionPoolError(
      'SESSION_POOL_INVALID_CONFIG',
      `session-pool: size must be a positive safe integer no greater than ${4 * cores} (4 per core; this machine has ${cores})`,
    );
    for (const size of [0, -1, 1.5, 4 * cores + 1, Number.NaN, '2']) {
      expect(() => new WorkerPool({ size: size as number })).toThrow(expected);
    }
    expect(resolvePoolConfig({ size: 4 * cores }).size).toBe(4 * cores);
  });

  it('starts no thread before the first task', async () => {
    const lazy = new WorkerPool({ size: 1 });
    expect(lazy.threads).toHaveLength(0);
    await lazy.close();
  });

  it('production knows no test task: TASK_KINDS and the entry module lack it, and production runners refuse it before any thread starts', async () => {
    expect(TASK_KINDS).toEqual(['readSource', 'inspect', 'observeTitles', 'dcpLedger', 'searchDocuments']);
    const entry: Record<string, unknown> = await import('../../../../src/workers/entry.js');
    expect(Object.keys(entry).sort()).toEqual(['dcpLedger', 'inspect', 'observeTitles', 'readSource', 'searchDocuments']);
    const expected = { code: 'SESSION_POOL_UNKNOWN_TASK', message: 'the session task runner serves no "testFault" task' };
    const production = new WorkerPool({ size: 1 });
    const error = (await rejection(production.run('testFault' as never, { mode: 'exit' } as never))) as SessionPoolError;
    expect(error).toBeInstanceOf(SessionPoolError);
    expect({ code: error.code, message: error.message }).toEqual(expected);
    expect(production.threads).toHaveLength(0);
    await production.close();
    const inThreadProduction = new InThreadTaskRunner();
    const inThreadError = (await rejection(inThreadProduction.run('testFault' as never, { mode: 'exit' } as never))) as SessionPoolError;
    expect({ code: inThreadError.code, message: inThreadError.message }).toEqual(expected);
  });
});

describe.each([
  ['worker pool', pool as FaultRunner],
  ['in-thread runner', inThread as FaultRunner],
])('abort semantics (%s)', (_name, runner) => {
  it('runs a task and returns its value', async () => {
    expect((await runner.run('testFault', { mode: 'echo', value: 'hello' })).value).toBe('hello');
  });

  it('abort before: rejects with exactly the reason and adds no listener', async () => {
    const controller = new AbortController();
    const reason = new Error('aborted before');
    controller.abort(reason);
    expect(await rejection(runner.run('testFault', { mode: 'echo', value: 'x' }, { signal: controller.signal }))).toBe(reason);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('abort while a task runs: settles at once with the reason; the late result is dropped', async () => {
    const unhandled = trackUnhandledRejections();
    try {
      const controller = new AbortController();
      const reason = new Error('aborted while running');
      const running = runner.run('testFault', { mode: 'echo', value: 'late', delayMs: 150 }, { signal: controller.signal });
      await settle(20);
      const start = performance.now();
      controller.abort(reason);
      expect(await within(rejection(running), 50)).toBe(reason);
      expect(performance.now() - start).toBeLessThan(50);
      expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
      await settle(250);
      expect(unhandled.reasons).toEqual([]);
      expect((await runner.run('testFault', { mode: 'echo', value: 'next' })).value).toBe('next');
    } finally {
      unhandled.stop();
    }
  });

  it('abort after the task settled: the value stands and no listener is left', async () => {
    const controller = new AbortController();
    const value = await runner.run('testFault', { mode: 'echo', value: 'kept' }, { signal: controller.signal });
    controller.abort(new Error('too late'));
    expect(value.value).toBe('kept');
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });
});

describe('message-passing abort reaches a running worker', () => {
  it('a CPU-bound task stops at its next poll and its thread is reused (no respawn)', async () => {
    await Promise.all([pool.run('testFault', { mode: 'echo' }), pool.run('testFault', { mode: 'echo' })]);
    const before = threadIds(pool);
    const controller = new AbortController();
    const spinning = pool.run('testFault', { mode: 'spin' }, { signal: controller.signal });
    await settle(30);
    controller.abort(new Error('stop spinning'));
    await expect(spinning).rejects.toThrow('stop spinning');
    // Both threads answer again, and they are the same threads.
    const answers = await Promise.all([0, 1, 2, 3].map(() => within(pool.run('testFault', { mode: 'echo', delayMs: 20 }), 2000)));
    expect(new Set(answers.map((answer) => answer.threadId)).size).toBe(2);
    expect(threadIds(pool)).toEqual(before);
  });

  it('a stalled task (stuck in a "system call") does not hold the caller; close() still ends the pool', async () => {
    const stalling = new WorkerPool({ size: 1 }, FAULT_ENTRY);
    const controller = new AbortController();
    const stalled = stalling.run('testFault', { mode: 'stall' }, { signal: controller.signal });
    await settle(30);
    controller.abort(new Error('give up'));
    await expect(within(stalled, 50)).rejects.toThrow('give up');
    await within(stalling.close(), 10_000);
    expect(stalling.threads).toHaveLength(0);
    const closed = (await rejection(stalling.run('testFault', { mode: 'echo' }))) as SessionPoolError;
    expect({ code: closed.code, message: closed.message }).toEqual({
      code: 'SESSION_POOL_CLOSED',
      message: 'the session worker pool is closed',
    });
  });
});

describe('a dying worker fails only its own task', () => {
  it('process.exit in a worker → SESSION_POOL_WORKER_FAILED; a sibling task and the next call succeed', async () => {
    const sibling = pool.run('testFault', { mode: 'echo', value: 'sibling', delayMs: 100 });
    const crash = (await rejection(pool.run('testFault', { mode: 'exit' }))) as SessionPoolError;
    expect(crash).toBeInstanceOf(SessionPoolError);
    expect(crash.code).toBe('SESSION_POOL_WORKER_FAILED');
    expect(crash.message).toBe('worker thread failed while running a testFault task: worker exited with code: 7');
    expect((await sibling).value).toBe('sibling');
    expect((await pool.run('testFault', { mode: 'echo', value: 'after crash' })).value).toBe('after crash');
    expect(pool.threads).toHaveLength(2);
  });

  it('an uncaught exception in a worker → SESSION_POOL_WORKER_FAILED with its message; the pool recovers', async () => {
    const crash = (await rejection(pool.run('testFault', { mode: 'uncaught' }))) as SessionPoolError;
    expect(crash.code).toBe('SESSION_POOL_WORKER_FAILED');
    expect(crash.message).toBe('worker thread failed while running a testFault task: test fault: uncaught exception in a worker');
    expect((crash.cause as Error).message).toBe('test fault: uncaught exception in a worker');
    expect((await pool.run('testFault', { mode: 'echo', value: 'recovered' })).value).toBe('recovered');
    expect(pool.threads).toHaveLength(2);
  });
});

/** Starts a pool of four, closes it right after its first task, and reports which threads exited before their entry module loaded. */
async function closeRightAfterFirstTask(): Promise<{ exitedBeforeBoot: number[]; booted: number }> {
  const starting = new WorkerPool({ size: 4 }, FAULT_ENTRY);
  const first = starting.run('testFault', { mode: 'echo', value: 'first' });
  const threads = starting.threads;
  expect(threads).toHaveLength(4);
  const booted = new Set<number>();
  const exitedBeforeBoot: number[] = [];
  for (const thread of threads) {
    const id = thread.threadId;
    thread.on('message', (message: unknown) => {
      // piscina's own "handler loaded" message (common.READY), posted once per thread.
      if (typeof message === 'object' && message !== null && '_WORKER_READY' in message) booted.add(id);
    });
    thread.once('exit', () => {
      if (!booted.has(id)) exitedBeforeBoot.push(id);
    });
  }
  // Close at once, while the three idle threads (and likely the busy one) are still loading.
  const closing = starting.close();
  await first.catch(() => undefined);
  await within(closing, 15_000);
  await new Promise((resolve) => setTimeout(resolve, 50));
  return { exitedBeforeBoot, booted: booted.size };
}

describe('close while threads are still starting', () => {
  // Node 20 aborts the whole process (`v8::Module::IsGraphAsync … must be used on an instantiated module`)
  // when a worker is terminated while its entry module graph is still being instantiated; a one-shot CLI
  // call that closes its pool after one task hit it now and then. close() must let every starting thread
  // finish loading its entry module before terminating it.
  it('every thread has loaded its entry module before close() terminates it (three pools in a row)', async () => {
    for (let round = 0; round < 3; round += 1) {
      expect(await closeRightAfterFirstTask()).toEqual({ exitedBeforeBoot: [], booted: 4 });
    }
  });
});
