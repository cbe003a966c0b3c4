/**
 * Interleaved timing of slow contenders: round after round, each contender runs once in turn, so
 * a burst of load on a shared machine falls on all of them alike instead of on whichever happened
 * to be measured then — the ratios between them are the claim.
 */
import type { MeasuredRow } from './measure.js';

/** Median of sorted numbers. */
function medianOfSorted(times: readonly number[]): number {
  const middle = Math.floor(times.length / 2);
  return times.length % 2 === 1 ? (times[middle] as number) : ((times[middle - 1] as number) + (times[middle] as number)) / 2;
}

/** A row of plain timed runs (sorted internally). */
export function rowOf(name: string, times: readonly number[]): MeasuredRow {
  if (times.length === 0) throw new Error(`contender "${name}" has no runs`);
  const sorted = [...times].sort((a, b) => a - b);
  return {
    name,
    medianMs: medianOfSorted(sorted),
    minMs: sorted[0] as number,
    maxMs: sorted[sorted.length - 1] as number,
    samples: sorted.length,
  };
}

/** Runs `rounds` rounds of every contender once, in the given order, and returns one row per contender. */
export async function measureInterleaved(contenders: Record<string, () => unknown>, rounds: number): Promise<MeasuredRow[]> {
  const times = new Map<string, number[]>(Object.keys(contenders).map((name) => [name, []]));
  for (let round = 0; round < rounds; round += 1) {
    for (const [name, fn] of Object.entries(contenders)) {
      const start = performance.now();
      await fn();
      (times.get(name) as number[]).push(performance.now() - start);
    }
  }
  return [...times].map(([name, runs]) => rowOf(name, runs));
}

/** Times one call. */
export async function timeOnce(fn: () => unknown): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}
