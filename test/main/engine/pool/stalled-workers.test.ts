// Stalled workers are reclaimed (issue 12, Build item 6; ARCHITECTURE.md §3): an aborted task that does not
// acknowledge the abort within the pool's `abortGraceMs` has its thread terminated and replaced, so a stall
// never costs the pool its capacity; a task that acknowledges within the grace period keeps its thread warm.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InThreadTaskRunner } from '../../../../src/main/engine/pool/in-thread-runner.js';
import { resolvePoolConfig } from '../../../../src/main/engine/pool/pool-config.js';
import { WorkerPool } from '../../../../src/main/engine/pool/worker-pool.js';
import { SessionPoolError } from '../../../../src/protocol/wire/pool-errors.js';
import { settle, trackUnhandledRejections, within } from '../reference/reference-builders.js';
import { makeTempDir, removeTempDir } from '../store/store-test-builders.js';
import { BlockingFifo } from '../../../support/blocking-fifo.js';
import { FAULT_ENTRY } from '../../../support/fault-task.js';
import type { FaultPool, TestFaultPayload } from '../../../support/fault-task.js';

const GRACE_MS = 300;
const pools: FaultPool[] = [];
let dir: string;
let fifo: BlockingFifo;

beforeAll(async () => {
  dir = await makeTempDir();
  fifo = new BlockingFifo(dir);
});

afterAll(async () => {
  // Released first: a thread stuck in read(2) cannot be terminated, and the process could not exit with it.
  await fifo.release();
  await Promise.all(pools.map((pool) => pool.close()));
  await removeTempDir(dir);
});

function newPool(size: number, abortGraceMs = GRACE_MS): FaultPool {
  const pool = new WorkerPool({ size, abortGraceMs }, FAULT_ENTRY);
  pools.push(pool);
  return pool;
}

function threadIds(pool: FaultPool): number[] {
  return pool.threads.map((thread) => thread.threadId).sort((a, b) => a - b);
}

/** Starts every thread of `pool` and waits until each has answered once. */
async function warm(pool: FaultPool): Promise<void> {
  await Promise.all(Array.from({ length: pool.config.size }, () => pool.run('testFault', { mode: 'echo', delayMs: 20 })));
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    (value) => {
      throw new Error(`expected a rejection, got ${JSON.stringify(value)}`);
    },
    (error: unknown) => error,
  );
}

/** Polls `condition` every 5 ms until it holds; rejects after `ms`. */
async function until(condition: () => boolean, ms: number): Promise<void> {
  const deadline = performance.now() + ms;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`condition still false after ${ms} ms`);
    await settle(5);
  }
}

describe('abortGraceMs configuration', () => {
  it('defaults to 1000 ms and accepts positive safe integers up to the timer limit', () => {
    expect(resolvePoolConfig().abortGraceMs).toBe(1000);
    expect(resolvePoolConfig({ abortGraceMs: null }).abortGraceMs).toBe(1000);
    expect(resolvePoolConfig({ abortGraceMs: 1 }).abortGraceMs).toBe(1);
    expect(resolvePoolConfig({ abortGraceMs: 2_147_483_647 }).abortGraceMs).toBe(2_147_483_647);
    expect(new WorkerPool({ abortGraceMs: 250 }).config.abortGraceMs).toBe(250);
  });

  it('rejects anything else with SESSION_POOL_INVALID_CONFIG, in the pool and in the in-thread runner', () => {
    const expected = new SessionPoolError(
      'SESSION_POOL_INVALID_CONFIG',
      'session-pool: abortGraceMs must be a positive safe integer of milliseconds no greater than 2147483647',
    );
    for (const abortGraceMs of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2_147_483_648, '1000', true]) {
      expect(() => new WorkerPool({ abortGraceMs: abortGraceMs as number })).toThrow(expected);
      expect(() => new InThreadTaskRunner({ abortGraceMs: abortGraceMs as number })).toThrow(expected);
      let code: unknown;
      try {
        resolvePoolConfig({ abortGraceMs: abortGraceMs as number });
      } catch (error) {
        code = (error as SessionPoolError).code;
      }
      expect(code).toBe('SESSION_POOL_INVALID_CONFIG');
    }
  });
});

const STALLS: ReadonlyArray<[string, () => TestFaultPayload]> = [
  ['a task that never settles and ignores the abort', () => ({ mode: 'stall' })],
  ['a synchronous loop that never polls its port', () => ({ mode: 'busyLoop' })],
  ['a read that never returns (a FIFO opened in blocking mode)', () => ({ mode: 'blockingRead', path: fifo.path })],
];

describe.each(STALLS)('a stalled worker is reclaimed: %s', (_name, payload) => {
  it('the caller settles at once; after the grace period the thread is replaced and a task without a signal runs', async () => {
    const unhandled = trackUnhandledRejections();
    try {
      const pool = newPool(1);
      await warm(pool);
      const [before] = threadIds(pool);
      const task = payload();
      if (task.mode === 'blockingRead') fifo.noteReader();
      const controller = new AbortController();
      const reason = new Error('turn cancelled');
      const stalled = pool.run('testFault', task, { signal: controller.signal });
      await settle(50);
      const abortedAt = performance.now();
      controller.abort(reason);
      expect(await within(rejection(stalled), 50)).toBe(reason);
      expect(performance.now() - abortedAt).toBeLessThan(50);

      // The only thread is stuck: a task without a signal waits for the reclaim, then runs on a new thread.
      const next = await within(pool.run('testFault', { mode: 'echo', value: 'after the stall' }), 5000);
      const reclaimMs = performance.now() - abortedAt;
      expect(next.value).toBe('after the stall');
      expect(next.threadId).not.toBe(before);
      expect(reclaimMs).toBeGreaterThanOrEqual(GRACE_MS - 5);
      expect(pool.threads).toHaveLength(1);
      expect(pool.stats).toMatchObject({ abortGraceExpiries: 1, reclaimedWorkers: 1, workersStarted: 2, respawns: 1 });
      await settle(20);
      expect(unhandled.reasons).toEqual([]);
    } finally {
      unhandled.stop();
    }
  });
});

describe('the grace period is honoured', () => {
  it('a task that acknowledges the abort within the grace period keeps its thread (no respawn)', async () => {
    const pool = newPool(1, 600);
    await warm(pool);
    const before = threadIds(pool);
    const controller = new AbortController();
    const reason = new Error('stop');
    const late = pool.run('testFault', { mode: 'lateAck', delayMs: 300 }, { signal: controller.signal });
    await settle(30);
    controller.abort(reason);
    expect(await within(rejection(late), 50)).toBe(reason);
    // Past the acknowledgement and past the grace period: nothing was reclaimed.
    await settle(800);
    expect((await pool.run('testFault', { mode: 'echo', value: 'warm' })).threadId).toBe(before[0]);
    expect(threadIds(pool)).toEqual(before);
    expect(pool.stats).toMatchObject({ abortGraceExpiries: 0, reclaimedWorkers: 0, respawns: 0 });
  });

  it('a task that acknowledges only after the grace period is reclaimed; its late settlement is dropped', async () => {
    const unhandled = trackUnhandledRejections();
    try {
      const pool = newPool(1, GRACE_MS);
      await warm(pool);
      const before = threadIds(pool);
      const controller = new AbortController();
      const reason = new Error('stop');
      const late = pool.run('testFault', { mode: 'lateAck', delayMs: 3 * GRACE_MS }, { signal: controller.signal });
      await settle(30);
      controller.abort(reason);
      expect(await within(rejection(late), 50)).toBe(reason);
      await until(() => pool.stats.reclaimedWorkers === 1, 5000);
      const next = await pool.run('testFault', { mode: 'echo', value: 'next' });
      expect(next.threadId).not.toBe(before[0]);
      expect(pool.stats).toMatchObject({ abortGraceExpiries: 1, reclaimedWorkers: 1, respawns: 1 });
      await settle(4 * GRACE_MS);
      expect(unhandled.reasons).toEqual([]);
    } finally {
      unhandled.stop();
    }
  });

  it('a stalled thread is not touched before the grace period ends', async () => {
    const pool = newPool(1, 700);
    await warm(pool);
    const before = threadIds(pool);
    const controller = new AbortController();
    const stalled = pool.run('testFault', { mode: 'busyLoop' }, { signal: controller.signal });
    await settle(30);
    controller.abort(new Error('stop'));
    await rejection(stalled);
    await settle(400);
    expect(threadIds(pool)).toEqual(before);
    expect(pool.stats.reclaimedWorkers).toBe(0);
    await until(() => pool.stats.reclaimedWorkers === 1, 5000);
    expect(threadIds(pool)).not.toEqual(before);
  });

  it('an abort the task answers at its next poll keeps both threads warm, however long one waits', async () => {
    const pool = newPool(2, 100);
    await warm(pool);
    const before = threadIds(pool);
    for (let round = 0; round < 5; round++) {
      const controller = new AbortController();
      const spinning = [
        pool.run('testFault', { mode: 'spin' }, { signal: controller.signal }),
        pool.run('testFault', { mode: 'spin' }, { signal: controller.signal }),
      ];
      await settle(20);
      controller.abort(new Error('stop spinning'));
      for (const task of spinning) await rejection(task);
    }
    await settle(300);
    await warm(pool);
    expect(threadIds(pool)).toEqual(before);
    expect(pool.stats).toMatchObject({ abortGraceExpiries: 0, reclaimedWorkers: 0, workersStarted: 2, respawns: 0 });
  });
});

describe('the grace period counts only time the task runs', () => {
  it('tasks aborted while queued are judged from their start: draining a long queue past the grace period reclaims nothing', async () => {
    const pool = newPool(1, 200);
    await warm(pool);
    const before = threadIds(pool);
    const controller = new AbortController();
    const tasks = Array.from({ length: 2000 }, (_, index) =>
      pool.run('testFault', { mode: 'echo', value: String(index) }, { signal: controller.signal }),
    );
    const abortedAt = performance.now();
    controller.abort(new Error('stop'));
    await Promise.all(tasks.map((task) => rejection(task)));
    // Queued behind all of them: it answers once the queue is drained, which takes longer than the grace period.
    await pool.run('testFault', { mode: 'echo', value: 'after the queue' });
    const drainMs = performance.now() - abortedAt;
    expect(drainMs).toBeGreaterThan(200);
    expect(pool.stats).toMatchObject({ abortGraceExpiries: 0, reclaimedWorkers: 0, respawns: 0 });
    expect(threadIds(pool)).toEqual(before);
  });

  it('a main-thread stall longer than the grace period does not reclaim a task whose reply is already waiting', async () => {
    const pool = newPool(1, 200);
    await warm(pool);
    const before = threadIds(pool);
    const controller = new AbortController();
    const late = pool.run('testFault', { mode: 'lateAck', delayMs: 50 }, { signal: controller.signal });
    await settle(50);
    controller.abort(new Error('stop'));
    // Block this thread well past the grace period; the worker acknowledges meanwhile.
    const until = performance.now() + 500;
    while (performance.now() < until);
    await rejection(late);
    await settle(300);
    expect(pool.stats).toMatchObject({ abortGraceExpiries: 0, reclaimedWorkers: 0, respawns: 0 });
    expect(threadIds(pool)).toEqual(before);
  });
});

describe('reclaim details', () => {
  it('a task aborted while queued behind a stall costs no thread of its own', async () => {
    const pool = newPool(1);
    await warm(pool);
    const controller = new AbortController();
    const stalled = pool.run('testFault', { mode: 'stall' }, { signal: controller.signal });
    await settle(30);
    const queued = pool.run('testFault', { mode: 'echo', value: 'never' }, { signal: controller.signal });
    controller.abort(new Error('stop'));
    await Promise.all([rejection(stalled), rejection(queued)]);
    const next = await within(pool.run('testFault', { mode: 'echo', value: 'next' }), 5000);
    expect(next.value).toBe('next');
    await settle(2 * GRACE_MS);
    // One thread was stuck, so exactly one was replaced, whatever became of the queued task.
    expect(pool.stats).toMatchObject({ reclaimedWorkers: 1, respawns: 1 });
    expect(pool.threads).toHaveLength(1);
  });

  it('a thread stuck in read(2) leaves the pool at once but lingers until the read returns', async () => {
    const pool = newPool(1);
    await warm(pool);
    const controller = new AbortController();
    fifo.noteReader();
    const stuck = pool.run('testFault', { mode: 'blockingRead', path: fifo.path }, { signal: controller.signal });
    await settle(50);
    controller.abort(new Error('stop'));
    await rejection(stuck);
    await until(() => pool.stats.reclaimedWorkers === 1, 5000);
    await settle(100);
    // Termination stops JavaScript, not a system call: the old thread has not exited.
    expect(pool.stats.lingeringThreads).toBe(1);
    expect((await pool.run('testFault', { mode: 'echo', value: 'served' })).value).toBe('served');
    await fifo.release();
    await until(() => pool.stats.lingeringThreads === 0, 5000);
  });

  it('close() ends a pool whose stalled thread was reclaimed', async () => {
    const pool = newPool(1);
    await warm(pool);
    const controller = new AbortController();
    const stalled = pool.run('testFault', { mode: 'busyLoop' }, { signal: controller.signal });
    await settle(30);
    controller.abort(new Error('stop'));
    await rejection(stalled);
    await until(() => pool.stats.reclaimedWorkers === 1, 5000);
    await within(pool.close(), 5000);
    expect(pool.threads).toHaveLength(0);
    // A terminated loop (unlike a blocked read) does exit.
    await until(() => pool.stats.lingeringThreads === 0, 5000);
  });
});
