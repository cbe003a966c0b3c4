/**
 * The per-turn budget shared by concurrent background steps: the first step of a turn starts it, steps in the same
 * turn see the time the earlier ones used, and the turn ends at the next check phase.
 */
import { describe, expect, it } from 'vitest';
import { HOST_SLICE_MS } from '../../src/io/time-slice.js';
import { turnSpent, yieldIfTurnSpent } from '../../src/io/turn-budget.js';

function spin(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // Busy: the turn's budget is spent by this stretch.
  }
}

describe('turn budget', () => {
  it('is spent once the steps of one turn ran its budget, and fresh in the next turn', async () => {
    await new Promise((resolve) => setImmediate(resolve));
    expect(turnSpent()).toBe(false);
    expect(turnSpent()).toBe(false);
    spin(HOST_SLICE_MS + 0.5);
    // Another step in the same stretch (a second I/O completion of the same poll phase) sees the time used.
    expect(turnSpent()).toBe(true);
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    expect(turnSpent()).toBe(false);
  });

  it('yieldIfTurnSpent hops only when the turn is spent', async () => {
    await new Promise((resolve) => setImmediate(resolve));
    let immediateRan = false;
    setImmediate(() => {
      immediateRan = true;
    });
    await yieldIfTurnSpent();
    // Not spent: resolved as a microtask, before the immediate queued above.
    expect(immediateRan).toBe(false);
    spin(HOST_SLICE_MS + 0.5);
    await yieldIfTurnSpent();
    // Spent: it hopped through the check phase, where the immediate ran.
    expect(immediateRan).toBe(true);
  });
});
