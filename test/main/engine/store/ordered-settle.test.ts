/**
 * The listing's bounded-concurrency helper: outcomes come back in item order, at most `limit` steps run at
 * once, and after a failure no new step starts while every earlier outcome is present.
 */
import { describe, expect, it } from 'vitest';
import { settleInOrder } from '../../../../src/main/engine/store/ordered-settle.js';

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

describe('settleInOrder', () => {
  it('returns outcomes in item order whatever the completion order, with at most `limit` running', async () => {
    let running = 0;
    let peak = 0;
    const outcomes = await settleInOrder([5, 1, 4, 2, 3, 0, 6, 2], 3, async (delay) => {
      running += 1;
      peak = Math.max(peak, running);
      await sleep(delay);
      running -= 1;
      return delay * 10;
    });
    expect(outcomes).toEqual([50, 10, 40, 20, 30, 0, 60, 20].map((value) => ({ status: 'fulfilled', value })));
    expect(peak).toBe(3);
  });

  it('keeps every outcome before the first failure and starts no step after it', async () => {
    const started: number[] = [];
    const outcomes = await settleInOrder([0, 1, 2, 3, 4, 5, 6, 7, 8, 9], 2, async (item) => {
      started.push(item);
      await sleep(item === 0 ? 30 : 1);
      if (item === 1) throw new Error('item 1 failed');
      return item;
    });
    expect(outcomes[0]).toEqual({ status: 'fulfilled', value: 0 });
    expect(outcomes[1]).toEqual({ status: 'rejected', reason: new Error('item 1 failed') });
    expect(started).toEqual([0, 1]);
    expect(outcomes.slice(2).every((outcome) => outcome === undefined)).toBe(true);
  });

  it('handles no items', async () => {
    expect(await settleInOrder([], 64, () => Promise.resolve(1))).toEqual([]);
  });
});
