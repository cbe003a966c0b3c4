/**
 * The time budget of sliced work: a slice hops once its budget has run, looks at the clock only every `clockEvery`
 * steps, and starts the next slice after the hop.
 */
import { describe, expect, it } from 'vitest';
import { TimeSlice } from '../../src/io/time-slice.js';

describe('TimeSlice', () => {
  it('is due once the slice has run its budget, and the hop starts a new slice', async () => {
    let clock = 100;
    let hops = 0;
    const slice = new TimeSlice({
      budgetMs: 5,
      now: () => clock,
      pause: async () => {
        hops += 1;
      },
    });
    clock = 104.9;
    expect(slice.due()).toBe(false);
    clock = 105;
    expect(slice.due()).toBe(true);
    await slice.hop();
    expect(hops).toBe(1);
    expect(slice.hops).toBe(1);
    // The new slice started at the hop's end (105): not due until 110.
    clock = 109;
    expect(slice.due()).toBe(false);
    clock = 110;
    expect(slice.due()).toBe(true);
    await slice.hop();
    expect(slice.due()).toBe(false);
    expect(hops).toBe(2);
  });

  it('looks at the clock only every clockEvery steps', () => {
    let looks = 0;
    const slice = new TimeSlice({
      budgetMs: 1,
      clockEvery: 4,
      now: () => {
        looks += 1;
        return looks * 10;
      },
    });
    // One look at construction; then steps 1–3 do not look, step 4 does (and is late by far).
    expect([slice.due(), slice.due(), slice.due()]).toEqual([false, false, false]);
    expect(looks).toBe(1);
    expect(slice.due()).toBe(true);
    expect(looks).toBe(2);
  });
});
