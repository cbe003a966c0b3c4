/**
 * The background publisher's schedule (issue 29, docs/FLEET.md §3), over a scripted `publish`: changes during a
 * publish are folded into one more; a failure is retried with a doubling, capped, jittered wait that a change does not
 * cut short and `publishNow` does; a listener that throws never stops it; `close()` aborts the publish in flight, waits
 * for it, and refuses what comes after with `FLEET_CLOSED`.
 */
import { describe, expect, it } from 'vitest';
import { BackgroundPublisher, type FleetPublishEvent, retryDelay } from '../../../../src/main/engine/fleet/background-publisher.js';
import type { PublishSummary } from '../../../../src/main/engine/fleet/corpus-publisher.js';
import { FleetError } from '../../../../src/main/engine/fleet/fleet-error.js';
import { deferred, flush } from '../../../support/async-probes.js';

const SUMMARY: PublishSummary = { corpusId: 'h:/r', published: 1, unchanged: 0, removed: 0, sources: 1, batches: 2 };

describe('retryDelay', () => {
  it('doubles from the first wait up to the cap, with at most a quarter taken off', () => {
    const retry = { initialDelayMs: 100, maxDelayMs: 1000 };
    for (let run = 0; run < 50; run += 1) {
      for (const [failures, base] of [
        [1, 100],
        [2, 200],
        [3, 400],
        [4, 800],
        [5, 1000],
        [40, 1000],
      ] as const) {
        const delay = retryDelay(failures, retry);
        expect(delay).toBeGreaterThanOrEqual(0.75 * base);
        expect(delay).toBeLessThanOrEqual(base);
      }
    }
  });
});

describe('BackgroundPublisher', () => {
  it('folds the changes that arrive during a publish into one more publish', async () => {
    const gates = [deferred<PublishSummary>(), deferred<PublishSummary>()];
    let calls = 0;
    const publisher = new BackgroundPublisher({
      publish: () => {
        calls += 1;
        return (gates[calls - 1] ?? gates[1])?.promise as Promise<PublishSummary>;
      },
    });
    publisher.start();
    await flush();
    expect(calls).toBe(1);
    publisher.changed();
    publisher.changed();
    publisher.changed();
    gates[0]?.resolve(SUMMARY);
    await flush();
    expect(calls).toBe(2);
    gates[1]?.resolve(SUMMARY);
    await flush();
    expect(calls).toBe(2);
    await publisher.close();
  });

  it('retries a failure after a growing wait that a change does not cut short, and publishNow does', async () => {
    const events: FleetPublishEvent[] = [];
    let calls = 0;
    let failing = true;
    const publisher = new BackgroundPublisher({
      publish: async () => {
        calls += 1;
        if (failing) throw new FleetError('FLEET_UNREACHABLE', 'querying the corpus index: the server is unreachable (ECONNREFUSED)');
        return SUMMARY;
      },
      onEvent: (event) => {
        events.push(event);
        throw new Error('a listener that fails');
      },
      retry: { initialDelayMs: 10, maxDelayMs: 20 },
    });
    publisher.start();
    while (events.filter((event) => event.kind === 'failed').length < 3) await new Promise((resolve) => setTimeout(resolve, 5));
    const failures = events.flatMap((event) => (event.kind === 'failed' ? [event] : []));
    expect(failures.slice(0, 3).map((failure) => [failure.code, failure.attempt])).toEqual([
      ['FLEET_UNREACHABLE', 1],
      ['FLEET_UNREACHABLE', 2],
      ['FLEET_UNREACHABLE', 3],
    ]);
    // A long wait now: a change waits it out, publishNow does not.
    const slow = new BackgroundPublisher({
      publish: async () => {
        calls += 1;
        if (failing) throw new FleetError('FLEET_UNREACHABLE', 'down');
        return SUMMARY;
      },
      retry: { initialDelayMs: 3_600_000, maxDelayMs: 3_600_000 },
    });
    slow.start();
    await flush();
    const before = calls;
    slow.changed();
    await flush();
    expect(calls).toBe(before);
    failing = false;
    await expect(slow.publishNow()).resolves.toEqual(SUMMARY);
    expect(calls).toBe(before + 1);
    await slow.close();
    await publisher.close();
  });

  it('close() aborts the publish in flight, waits for it, and refuses what comes after', async () => {
    const started = deferred<AbortSignal>();
    let settled = false;
    const publisher = new BackgroundPublisher({
      publish: (signal) => {
        started.resolve(signal);
        return new Promise<PublishSummary>((_resolve, reject) => {
          signal.addEventListener('abort', () =>
            setTimeout(() => {
              settled = true;
              reject(signal.reason);
            }, 10),
          );
        });
      },
    });
    publisher.start();
    const waiting = publisher.publishNow().catch((error: unknown) => error);
    const signal = await started.promise;
    await publisher.close();
    expect(signal.aborted).toBe(true);
    expect(settled).toBe(true);
    expect(await waiting).toMatchObject({ name: 'FleetError', code: 'FLEET_CLOSED' });
    await expect(publisher.publishNow()).rejects.toMatchObject({ name: 'FleetError', code: 'FLEET_CLOSED' });
    await publisher.firstAttempt();
  });
});
