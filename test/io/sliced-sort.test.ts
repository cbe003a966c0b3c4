/**
 * The sliced stable sort gives exactly the built-in sort's order (stable: ties keep input order) for any input, and
 * hops when its time slice runs out.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sortInSlices } from '../../src/io/sliced-sort.js';
import { TimeSlice } from '../../src/io/time-slice.js';

interface Item {
  readonly key: number;
  readonly position: number;
}

const byKey = (a: Item, b: Item): number => a.key - b.key;

describe('sortInSlices', () => {
  it('equals [...items].sort(compare) on random inputs with many ties, at every size around the run length', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 0, max: 20 }), { maxLength: 2000 }), async (keys) => {
        const items = keys.map((key, position) => ({ key, position }));
        const expected = [...items].sort(byKey);
        // A clock that moves at each look, so slices end all the time.
        let clock = 0;
        const sorted = await sortInSlices(items, byKey, new TimeSlice({ budgetMs: 3, now: () => clock++, pause: async () => {} }));
        expect(sorted).toEqual(expected);
      }),
      { seed: 2727, numRuns: 60 },
    );
  });

  it('keeps the input untouched and hops when the slice runs out', async () => {
    const items = Array.from({ length: 3000 }, (_, position) => ({ key: (position * 7919) % 1000, position }));
    const copy = [...items];
    let clock = 0;
    const slice = new TimeSlice({ budgetMs: 50, now: () => clock++, pause: async () => {} });
    const sorted = await sortInSlices(items, byKey, slice);
    expect(items).toEqual(copy);
    expect(sorted).toEqual([...items].sort(byKey));
    expect(slice.hops).toBeGreaterThan(10);
  });
});
