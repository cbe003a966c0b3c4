/**
 * The one abort toolkit (main/engine/signal/abort.ts): a race settles at once with the signal's reason and absorbs the late
 * settlement of the work it abandoned; a linked group is stopped by its own abort without touching the parent, and
 * by the parent with the parent's reason. An architecture check keeps it the only place that races by hand.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { linkedAbort, raceWithSignal } from '../../../../src/main/engine/signal/abort.js';

describe('raceWithSignal', () => {
  it('settles like the work while the signal stays quiet', async () => {
    await expect(raceWithSignal(Promise.resolve(7), new AbortController().signal)).resolves.toBe(7);
    await expect(raceWithSignal(Promise.reject(new Error('boom')), new AbortController().signal)).rejects.toThrow('boom');
  });

  it("rejects at once with the signal's reason, before or during the work, and absorbs the work's late failure", async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => {
      unhandled.push(reason);
    };
    process.on('unhandledRejection', onUnhandled);
    try {
      const before = new AbortController();
      before.abort('stopped early');
      let failLate: (error: Error) => void = () => undefined;
      const never = new Promise<number>((_resolve, reject) => {
        failLate = reject;
      });
      await expect(raceWithSignal(never, before.signal)).rejects.toBe('stopped early');
      const during = new AbortController();
      const racing = raceWithSignal(never, during.signal);
      during.abort(new Error('turn aborted'));
      await expect(racing).rejects.toThrow('turn aborted');
      failLate(new Error('late'));
      await new Promise((resolve) => setTimeout(resolve, 10));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});

describe('linkedAbort', () => {
  it("aborts the group alone on its own abort, and with the parent's reason when the parent aborts", () => {
    const parent = new AbortController();
    const one = linkedAbort(parent.signal);
    one.abort(new Error('a sibling failed'));
    expect(one.signal.aborted).toBe(true);
    expect(parent.signal.aborted).toBe(false);
    const two = linkedAbort(parent.signal);
    parent.abort('caller gave up');
    expect(two.signal.aborted).toBe(true);
    expect(two.signal.reason).toBe('caller gave up');
    const orphan = linkedAbort(undefined);
    expect(orphan.signal.aborted).toBe(false);
    orphan.abort('x');
    expect(orphan.signal.reason).toBe('x');
  });
});

describe('one abort primitive', () => {
  it('only main/engine/signal/abort.ts loads abort-controller-x (the pool control channel takes its cancellable `execute` from there)', () => {
    // The tests run from dist/test/…: the sources are five levels up.
    const src = join(import.meta.dirname, '..', '..', '..', '..', '..', 'src');
    const files = (readdirSync(src, { recursive: true }) as string[]).filter((file) => file.endsWith('.ts'));
    const users = files
      .filter((file) => /['"]abort-controller-x['"]/.test(readFileSync(join(src, file), 'utf8')))
      .map((file) => relative(src, join(src, file)).split('\\').join('/'))
      .sort();
    expect(users).toEqual(['main/engine/signal/abort.ts']);
  });
});
