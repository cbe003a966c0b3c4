/**
 * A stable sort for a host's thread (issue 27 item 6): the order `Array.prototype.sort` gives (stable, so ties keep
 * their input order), computed in time slices. Sorting a corpus's records in one call held the thread 11 ms at 5,000
 * sessions and a quarter of a second at 100,000.
 */
import type { TimeSlice } from './time-slice.js';

/** Items sorted by one built-in sort call before the merges: a fraction of a millisecond each. */
const RUN_ITEMS = 64;

/**
 * `items` sorted by `compare` into a new array, exactly as `[...items].sort(compare)`: runs sorted by the built-in
 * stable sort, then merged pairwise, bottom up (a tie takes the left run's item first, which keeps input order);
 * hops whenever `slice` runs out of time. `items` is copied first, so a caller may change it meanwhile.
 */
export async function sortInSlices<T>(items: readonly T[], compare: (a: T, b: T) => number, slice: TimeSlice): Promise<T[]> {
  const count = items.length;
  let source = items.slice();
  for (let start = 0; start < count; start += RUN_ITEMS) {
    // A run is dearer than a merge step: the clock is read before each.
    if (start > 0 && slice.dueNow()) await slice.hop();
    const run = source.slice(start, start + RUN_ITEMS).sort(compare);
    for (let offset = 0; offset < run.length; offset += 1) source[start + offset] = run[offset] as T;
  }
  let target = new Array<T>(count);
  for (let width = RUN_ITEMS; width < count; width *= 2) {
    for (let left = 0; left < count; left += 2 * width) {
      const middle = Math.min(left + width, count);
      const right = Math.min(left + 2 * width, count);
      let from = left;
      let other = middle;
      let into = left;
      while (from < middle && other < right) {
        if (slice.due()) await slice.hop();
        // Strictly less only: on a tie the left run's item goes first (stability).
        if (compare(source[other] as T, source[from] as T) < 0) target[into++] = source[other++] as T;
        else target[into++] = source[from++] as T;
      }
      while (from < middle) target[into++] = source[from++] as T;
      while (other < right) target[into++] = source[other++] as T;
    }
    [source, target] = [target, source];
  }
  return source;
}
