/**
 * The nearest-valid-cuts scan of hints (DCP.md §5.4): outward from an anchor position, at most 512 positions each
 * way, up to `hintCount` valid cuts before the anchor and up to `hintCount` at or after it.
 */
import { NEAREST_CUT_SCAN_LIMIT } from './constants.js';

/**
 * The refs of the nearest valid cuts around `anchor`, in surface order. `validCutRefAt(pos)` returns the ref of
 * the active boundary at surface position `pos` when it is a valid cut (pairing-balanced), else `undefined`; it is
 * called only for `0 <= pos < surfaceLength`. `anchor` may equal `surfaceLength` (unknown refs).
 */
export function nearestValidCuts(
  anchor: number,
  surfaceLength: number,
  hintCount: number,
  validCutRefAt: (position: number) => string | undefined,
): string[] {
  const before: string[] = [];
  const lowest = Math.max(0, anchor - NEAREST_CUT_SCAN_LIMIT);
  for (let position = anchor - 1; position >= lowest && before.length < hintCount; position -= 1) {
    const ref = validCutRefAt(position);
    if (ref !== undefined) before.push(ref);
  }
  const after: string[] = [];
  const highest = Math.min(surfaceLength, anchor + NEAREST_CUT_SCAN_LIMIT);
  for (let position = Math.max(0, anchor); position < highest && after.length < hintCount; position += 1) {
    const ref = validCutRefAt(position);
    if (ref !== undefined) after.push(ref);
  }
  return [...before.reverse(), ...after];
}
