/**
 * Rule E8 of the `compress` tool (DCP.md §7.5): ranges, as resolved when the call started, must come in surface
 * order and must not overlap. Touching ranges (`[m1,m2)` then `[m2,m4)`) are allowed.
 */

/** A range as resolved at entry time: half-open surface positions plus its label `<a>..<b>`. */
export interface ResolvedEntryRange {
  readonly label: string;
  readonly startPos: number;
  readonly endPos: number;
}

/**
 * The E8 error for `current`, checked against every earlier entry that resolved at entry time (in input order),
 * or `undefined`. The first conflicting earlier entry decides; for one earlier entry, overlap is checked first.
 */
export function surfaceOrderError(current: ResolvedEntryRange, earlier: readonly ResolvedEntryRange[]): string | undefined {
  for (const previous of earlier) {
    if (current.startPos < previous.endPos && previous.startPos < current.endPos) {
      return `ranges must be in surface order and non-overlapping: ${previous.label} overlaps ${current.label}`;
    }
    if (current.endPos <= previous.startPos) {
      return `ranges must be in surface order and non-overlapping: ${current.label} comes before ${previous.label}`;
    }
  }
  return undefined;
}
