// 10,000 abort cycles through the real pool (ARCHITECTURE.md §3 "Message-passing abort"): no leaked
// abort listeners, control ports, handles or threads, and no respawned thread; the same for prepare()
// aborted through the pool renderer.
import { getEventListeners, setMaxListeners } from 'node:events';
import { afterAll, describe, expect, it } from 'vitest';
import { WorkerPool } from '../../../../src/main/engine/pool/worker-pool.js';
import { FAULT_ENTRY } from '../../../support/fault-task.js';
import { RAW_ROOT } from '../../../support/fixtures.js';
import { openStore, serviceWith } from './pool-builders.js';

const pool = new WorkerPool({ size: 2 }, FAULT_ENTRY);
afterAll(() => pool.close());

/** Counts of this thread's active resources by type (MessagePort, Timeout, …). */
function resourceCounts(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const type of process.getActiveResourcesInfo()) counts.set(type, (counts.get(type) ?? 0) + 1);
  return counts;
}

function threadIds(): number[] {
  return pool.threads.map((thread) => thread.threadId).sort((a, b) => a - b);
}

/** Lets every queued task finish: the pool runs tasks in order, so a fresh task on each thread drains it. */
async function drain(): Promise<void> {
  await Promise.all([pool.run('testFault', { mode: 'echo' }), pool.run('testFault', { mode: 'echo' })]);
  await new Promise((resolve) => setTimeout(resolve, 50));
}

describe('abort cycles', () => {
  it('10,000 aborted tasks leave listeners, ports, handles and threads as they were', async () => {
    await drain();
    const threadsBefore = threadIds();
    const resourcesBefore = resourceCounts();
    const handlesBefore = (process as unknown as { _getActiveHandles(): unknown[] })._getActiveHandles().length;

    let rejectedWithReason = 0;
    for (let cycle = 0; cycle < 10_000; cycle++) {
      const controller = new AbortController();
      const reason = new Error(`cycle ${cycle}`);
      const task = pool.run('testFault', { mode: 'echo', value: String(cycle) }, { signal: controller.signal });
      // Abort before the task left this thread, after a microtask, or after a macrotask (possibly while it runs).
      if (cycle % 3 === 1) await Promise.resolve();
      if (cycle % 3 === 2) await new Promise((resolve) => setImmediate(resolve));
      controller.abort(reason);
      const outcome = await task.then(
        (value) => value.value,
        (error: unknown) => error,
      );
      if (outcome === reason) rejectedWithReason += 1;
      else expect(outcome).toBe(String(cycle));
      expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    }
    expect(rejectedWithReason).toBeGreaterThan(9000);

    await drain();
    expect(threadIds()).toEqual(threadsBefore);
    const resourcesAfter = resourceCounts();
    expect(resourcesAfter.get('MessagePort') ?? 0).toBeLessThanOrEqual(resourcesBefore.get('MessagePort') ?? 0);
    expect((process as unknown as { _getActiveHandles(): unknown[] })._getActiveHandles().length).toBeLessThanOrEqual(handlesBefore);
  });

  it('one long-lived signal over 2,000 completed tasks keeps no listener', async () => {
    const controller = new AbortController();
    // 50 tasks share the signal at a time; each removes its listener when it settles.
    setMaxListeners(100, controller.signal);
    for (let round = 0; round < 40; round++) {
      await Promise.all(Array.from({ length: 50 }, () => pool.run('testFault', { mode: 'echo' }, { signal: controller.signal })));
    }
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('1,000 prepare() calls aborted mid-read through the pool renderer: CANCELLED each time, nothing leaks', async () => {
    const store = await openStore(RAW_ROOT, 'none');
    const { service } = serviceWith('pool', pool, { storage: store });
    const ids = (await store.list()).map((header) => header.id).slice(0, 3);
    await drain();
    const threadsBefore = threadIds();
    const portsBefore = resourceCounts().get('MessagePort') ?? 0;
    let cancelled = 0;
    for (let cycle = 0; cycle < 1000; cycle++) {
      const controller = new AbortController();
      const preparing = service.prepare(
        { id: 'target', session: { header: {} } },
        [{ type: 'text', text: 'x' }],
        ids.map((sessionId) => ({ sessionId })),
        controller.signal,
      );
      if (cycle % 2 === 1) await new Promise((resolve) => setImmediate(resolve));
      controller.abort(new Error('turn cancelled'));
      const error = await preparing.then(
        () => undefined,
        (reason: unknown) => reason as { code?: unknown },
      );
      if (error?.code === 'SESSION_REFERENCE_CANCELLED') cancelled += 1;
      expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    }
    expect(cancelled).toBe(1000);
    await drain();
    expect(threadIds()).toEqual(threadsBefore);
    expect(resourceCounts().get('MessagePort') ?? 0).toBeLessThanOrEqual(portsBefore);
  });
});
