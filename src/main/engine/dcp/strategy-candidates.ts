/**
 * The strategy candidates the DCP index keeps (DCP.md §3.1 "dedup groups, error units"): for each dedup key, the
 * current original results in seq order plus a dirty set of keys worth a look; and the errored originals in seq
 * order with a cursor for the purge age. Both are updated in O(1) amortised per event (a removal is O(group size)),
 * so a pre-step never scans the log or the surface (§19 D2).
 */

/** Dedup groups with their dirty set. */
export class DedupGroups {
  readonly #groups = new Map<string, number[]>();
  readonly #keyOf = new Map<number, string>();
  /** Keys whose group has at least two members and may hold a prunable member. */
  readonly #dirty = new Set<string>();

  /** An original result `seq` with dedup key `key` joined the surface. */
  add(seq: number, key: string): void {
    let group = this.#groups.get(key);
    if (group === undefined) {
      group = [];
      this.#groups.set(key, group);
    }
    group.push(seq);
    this.#keyOf.set(seq, key);
    if (group.length >= 2) this.#dirty.add(key);
  }

  /** `seq` left the surface (it was shadowed); no-op for a seq that is not a member. O(group size). */
  remove(seq: number): void {
    const key = this.#keyOf.get(seq);
    if (key === undefined) return;
    this.#keyOf.delete(seq);
    const group = this.#groups.get(key) as number[];
    const at = group.indexOf(seq);
    if (at >= 0) group.splice(at, 1);
    if (group.length === 0) {
      this.#groups.delete(key);
      this.#dirty.delete(key);
    } else if (group.length >= 2) {
      // The keeper may have left: older members can become prunable.
      this.#dirty.add(key);
    } else {
      this.#dirty.delete(key);
    }
  }

  /** True while some group may hold a prunable member. O(1). */
  get hasDirty(): boolean {
    return this.#dirty.size > 0;
  }

  /** The dirty keys, in insertion order (a copy: the caller cleans while iterating). */
  dirtyKeys(): string[] {
    return [...this.#dirty];
  }

  /** The current members of `key` in seq order. */
  members(key: string): readonly number[] {
    return this.#groups.get(key) ?? [];
  }

  /** A batch looked at `key` and nothing in it can become prunable by ageing alone. */
  markClean(key: string): void {
    this.#dirty.delete(key);
  }

  /** Groups as plain data (keys sorted), for index snapshots. The dirty set is a work list, not state. */
  toJSON(): Array<[string, number[]]> {
    return [...this.#groups]
      .filter(([, group]) => group.length > 0)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, group]) => [key, [...group]]);
  }
}

/** Errored original results in seq order, with the cursor of the purge pass. */
export class ErrorUnits {
  readonly #seqs: number[] = [];
  #cursor = 0;

  /** An errored original result was appended. */
  add(seq: number): void {
    this.#seqs.push(seq);
  }

  /**
   * The errored results not yet looked at whose turn (by `turnOf`) is at most `limit`, advancing the cursor past
   * them: each is looked at once. Appended results have non-decreasing turns, so the scan stops at the first
   * younger one.
   */
  takeAged(limit: number, turnOf: (seq: number) => number): number[] {
    const out: number[] = [];
    while (this.#cursor < this.#seqs.length && turnOf(this.#seqs[this.#cursor] as number) <= limit) {
      out.push(this.#seqs[this.#cursor] as number);
      this.#cursor += 1;
    }
    return out;
  }

  /** Every errored original, for index snapshots (the cursor is a work position, not state). */
  toJSON(): number[] {
    return [...this.#seqs];
  }
}
