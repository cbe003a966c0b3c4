/**
 * The calls a host is waiting for on this thread: active while any is in progress (nested or concurrent), inactive
 * once all have settled, whether they resolved, rejected or threw before their first await.
 */
import { describe, expect, it } from 'vitest';
import { asForegroundCall, foregroundCallActive } from '../../src/io/foreground-calls.js';

describe('foreground calls', () => {
  it('are active while any call is in progress', async () => {
    expect(foregroundCallActive()).toBe(false);
    let endFirst: () => void = () => {};
    let endSecond: () => void = () => {};
    const first = asForegroundCall(() => new Promise<void>((resolve) => (endFirst = resolve)));
    const second = asForegroundCall(() => new Promise<void>((resolve) => (endSecond = resolve)));
    expect(foregroundCallActive()).toBe(true);
    endFirst();
    await first;
    expect(foregroundCallActive()).toBe(true);
    endSecond();
    await second;
    expect(foregroundCallActive()).toBe(false);
  });

  it('end with calls that reject or throw at once, passing their errors on', async () => {
    await expect(asForegroundCall(() => Promise.reject(new Error('rejected')))).rejects.toThrow('rejected');
    expect(foregroundCallActive()).toBe(false);
    await expect(
      asForegroundCall(() => {
        throw new Error('thrown');
      }),
    ).rejects.toThrow('thrown');
    expect(foregroundCallActive()).toBe(false);
  });

  it('nest: an inner call ending leaves the outer one active', async () => {
    await asForegroundCall(async () => {
      await asForegroundCall(async () => {
        expect(foregroundCallActive()).toBe(true);
      });
      expect(foregroundCallActive()).toBe(true);
    });
    expect(foregroundCallActive()).toBe(false);
  });
});
