/**
 * The host's indexed view of the current surface (HOST.md §2.4): node order plus seq → position and
 * seq → replacing-seq lookups, so that positional questions cost O(1) instead of a scan.
 */

/** Read-only access to the current surface (HOST.md §2.4). Positions are indexes in surface order. */
export interface SurfaceReader {
  /** The number of current surface nodes. O(1). */
  readonly length: number;
  /** Increased by one by every replace. O(1). */
  readonly replaceGeneration: number;
  /** The seq at position `position`, or `undefined` outside `[0, length)`. O(1). */
  at(position: number): number | undefined;
  /** True when `seq` is a current surface node. O(1). */
  has(seq: number): boolean;
  /** The position of `seq`, or `-1` when it is not a current node. O(1). */
  positionOf(seq: number): number;
  /** The seqs at positions `[start, end)` (clamped to the surface). O(end − start). */
  slice(start: number, end: number): number[];
  /** The seq of the event that removed `seq` from the surface, or `undefined`. O(1). */
  shadowedBy(seq: number): number | undefined;
  /** The nodes `replacingSeq` removed, in their former surface order (empty for any other seq). O(k). */
  shadowedOf(replacingSeq: number): readonly number[];
}

/** What a surface change did, as published to append listeners (HOST.md §2.3). */
export type SurfaceDelta =
  | { readonly kind: 'append'; readonly position: number }
  | { readonly kind: 'replace'; readonly position: number; readonly shadowed: readonly number[] };

const NO_SHADOWED: readonly number[] = Object.freeze([]);

/** True for an integer usable as an array index. */
function isIndex(value: number): boolean {
  return Number.isInteger(value) && value >= 0;
}

/**
 * The mutable surface index behind {@link SurfaceReader}. Only the session changes it, after an event passed
 * validation: an append is O(1); a single-node replace writes one slot and shifts nothing; a k-node replace
 * splices once and renumbers the shorter side of the surface around it, O(k + min(before, after)) index writes
 * (HOST.md §2.4 allows O(surface)). A native compaction absorbs the oldest nodes, so it renumbers almost nothing;
 * renumbering always the tail would make a long log's cold load quadratic.
 */
export class SurfaceView implements SurfaceReader {
  readonly #nodes: number[] = [];
  /**
   * `position + 1 + #base` by seq; 0 means "not a current node". Shifting every later node left by `d` is then
   * `#base += d` plus rewriting the earlier nodes, which is how the cheaper side is chosen.
   */
  #positionPlusOne = new Int32Array(1024);
  #base = 0;
  /** `replacingSeq + 1` by seq; 0 means "never shadowed". */
  #shadowedByPlusOne = new Int32Array(1024);
  readonly #shadowedOf = new Map<number, readonly number[]>();
  #replaceGeneration = 0;

  get length(): number {
    return this.#nodes.length;
  }

  get replaceGeneration(): number {
    return this.#replaceGeneration;
  }

  at(position: number): number | undefined {
    return isIndex(position) ? this.#nodes[position] : undefined;
  }

  has(seq: number): boolean {
    return this.positionOf(seq) !== -1;
  }

  positionOf(seq: number): number {
    if (!isIndex(seq) || seq >= this.#positionPlusOne.length) return -1;
    const stored = this.#positionPlusOne[seq] as number;
    return stored === 0 ? -1 : stored - 1 - this.#base;
  }

  slice(start: number, end: number): number[] {
    return this.#nodes.slice(Math.max(0, start), Math.max(0, end));
  }

  shadowedBy(seq: number): number | undefined {
    if (!isIndex(seq) || seq >= this.#shadowedByPlusOne.length) return undefined;
    const value = this.#shadowedByPlusOne[seq] as number;
    return value === 0 ? undefined : value - 1;
  }

  shadowedOf(replacingSeq: number): readonly number[] {
    return this.#shadowedOf.get(replacingSeq) ?? NO_SHADOWED;
  }

  /** Adds `seq` as the last node. */
  append(seq: number): SurfaceDelta {
    this.#reserve(seq);
    const position = this.#nodes.length;
    this.#nodes.push(seq);
    this.#positionPlusOne[seq] = position + 1 + this.#base;
    return { kind: 'append', position };
  }

  /**
   * Replaces the nodes at positions `[startPosition, endPosition]` (inclusive) by `seq`. The caller has
   * validated the range (SESSION-LOG.md §5.2 rule 4).
   */
  replace(startPosition: number, endPosition: number, seq: number): SurfaceDelta {
    this.#reserve(seq);
    const shadowed = Object.freeze(this.#nodes.slice(startPosition, endPosition + 1));
    for (const removed of shadowed) {
      this.#positionPlusOne[removed] = 0;
      this.#shadowedByPlusOne[removed] = seq + 1;
    }
    if (shadowed.length === 1) {
      this.#nodes[startPosition] = seq;
    } else {
      this.#nodes.splice(startPosition, shadowed.length, seq);
      const after = this.#nodes.length - startPosition - 1;
      if (startPosition < after) {
        // Shift the tail by moving the base, then restore the nodes before the range to their unchanged positions.
        this.#base += shadowed.length - 1;
        for (let position = 0; position < startPosition; position++) {
          this.#positionPlusOne[this.#nodes[position] as number] = position + 1 + this.#base;
        }
      } else {
        for (let position = startPosition + 1; position < this.#nodes.length; position++) {
          this.#positionPlusOne[this.#nodes[position] as number] = position + 1 + this.#base;
        }
      }
    }
    this.#positionPlusOne[seq] = startPosition + 1 + this.#base;
    this.#shadowedOf.set(seq, shadowed);
    this.#replaceGeneration += 1;
    return { kind: 'replace', position: startPosition, shadowed };
  }

  /** Grows the by-seq tables (doubling) so that `seq` is a valid index. */
  #reserve(seq: number): void {
    if (seq < this.#positionPlusOne.length) return;
    const size = Math.max(seq + 1, this.#positionPlusOne.length * 2);
    const positions = new Int32Array(size);
    positions.set(this.#positionPlusOne);
    this.#positionPlusOne = positions;
    const shadowedBy = new Int32Array(size);
    shadowedBy.set(this.#shadowedByPlusOne);
    this.#shadowedByPlusOne = shadowedBy;
  }
}
