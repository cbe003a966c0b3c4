// One shared operation per job (src/main/engine/pool/tick-coalescer.ts): joined only by callers that asked before
// it started, its signal aborted once every joined caller aborted (SESSION-REFERENCE.md D4), and through
// the pool renderer one listing per burst of preparations.
import { describe, expect, it } from 'vitest';
import { InMemoryLiveRegistry } from '../../../../src/main/engine/corpus/live-registry.js';
import type { PoolRendererStorage } from '../../../../src/main/engine/pool/pool-source-renderer.js';
import { TickCoalescer } from '../../../../src/main/engine/pool/tick-coalescer.js';
import type { SessionHeader } from '../../../../src/protocol/events.js';
import { RAW_ROOT } from '../../../support/fixtures.js';
import { header, target } from '../reference/reference-builders.js';
import { inThreadRunner, openStore, serviceWith } from './pool-builders.js';

describe('TickCoalescer', () => {
  it('callers of one job share one operation; a later caller gets a fresh one', async () => {
    const coalescer = new TickCoalescer<number>();
    let starts = 0;
    const start = async (): Promise<number> => ++starts;
    const [a, b] = [coalescer.run('k', start), coalescer.run('k', start)];
    const other = coalescer.run('other', start);
    expect(await a).toBe(1);
    expect(await b).toBe(1);
    expect(await other).toBe(2);
    expect(await coalescer.run('k', start)).toBe(3);
  });

  it('the shared signal aborts only when every joined caller aborted; a caller without a signal keeps it running', async () => {
    const coalescer = new TickCoalescer<AbortSignal>();
    /** Joins two callers to one batch and returns the signal the operation got once it started. */
    const joinTwo = async (key: string, first: AbortSignal | undefined, second: AbortSignal | undefined): Promise<AbortSignal> => {
      let seen: AbortSignal | undefined;
      const operation = async (signal: AbortSignal): Promise<AbortSignal> => {
        seen = signal;
        return new Promise(() => undefined);
      };
      void coalescer.run(key, operation, first);
      void coalescer.run(key, operation, second);
      await new Promise((resolve) => setTimeout(resolve, 1));
      return seen as AbortSignal;
    };

    const one = new AbortController();
    const two = new AbortController();
    const both = await joinTwo('both', one.signal, two.signal);
    one.abort(new Error('one'));
    expect(both.aborted).toBe(false);
    two.abort(new Error('two'));
    expect(both.aborted).toBe(true);
    expect(both.reason).toBe(two.signal.reason);

    const three = new AbortController();
    const kept = await joinTwo('kept', three.signal, undefined);
    three.abort(new Error('three'));
    expect(kept.aborted).toBe(false);
  });
});

describe('through the pool renderer', () => {
  it('a burst of preparations lists the store once; an abort of every caller reaches the listing (D4)', async () => {
    const store = await openStore(RAW_ROOT, 'none');
    let listings = 0;
    const counting: PoolRendererStorage = {
      list: (signal) => {
        listings += 1;
        return store.list(signal);
      },
      locate: (id, signal) => store.locate(id, signal),
      config: store.config,
    };
    const runner = inThreadRunner();
    const { service } = serviceWith('pool', runner, { storage: counting as never });
    const ids = (await store.list()).map((listed) => listed.id);
    await Promise.all(
      Array.from({ length: 20 }, (_, call) => service.prepare(target(), [], [{ sessionId: ids[call % ids.length] as string }])),
    );
    expect(listings).toBe(1);

    const seen: Array<AbortSignal | undefined> = [];
    const hanging: PoolRendererStorage = {
      list: (signal) => {
        seen.push(signal);
        return new Promise<readonly SessionHeader[]>(() => undefined);
      },
      locate: () => new Promise(() => undefined),
      config: store.config,
    };
    const registry = new InMemoryLiveRegistry();
    registry.attach({ header: header('unrelated', 1), events: [] });
    const blocked = serviceWith('pool', runner, { registry, storage: hanging as never }).service;
    const controller = new AbortController();
    const preparing = blocked.prepare(target(), [], [{ sessionId: 'x' }], controller.signal).catch((error: unknown) => error);
    await new Promise((resolve) => setTimeout(resolve, 10));
    controller.abort(new Error('turn cancelled'));
    expect(((await preparing) as { code?: unknown }).code).toBe('SESSION_REFERENCE_CANCELLED');
    expect(seen).toHaveLength(1);
    expect(seen[0]?.aborted).toBe(true);
    await runner.close();
  });
});
