/**
 * Pending aliases (DCP.md §4.5): marker refs that a native-like replace shadowed and that have no alias line yet.
 * Each entry keeps the end of its `shadowedBy` chain — the current surface node the next alias line would name —
 * so emitting an alias needs no chain walk: a native-like replace of that node moves the entry to the replacing
 * node, and any DCP-class replace drops it for good (the model uses that block's `bN` instead). Everything here is
 * a function of the log, so a cold replay rebuilds the same entries.
 */

/** One pending ref and the surface node its alias would name. */
export interface PendingAlias {
  readonly ref: string;
  readonly number: number;
  /** The current surface node at the end of the ref's native-like chain. */
  readonly target: number;
}

interface MutablePending {
  readonly ref: string;
  readonly number: number;
  target: number;
}

/** The pending refs, ordered by marker number for emission. */
export class PendingAliases {
  readonly #byRef = new Map<string, MutablePending>();
  readonly #byTarget = new Map<number, MutablePending[]>();
  /** Entries sorted by number; removed entries stay until they reach the front (lazy deletion). */
  #order: MutablePending[] = [];
  #head = 0;

  /** The number of pending refs. */
  get size(): number {
    return this.#byRef.size;
  }

  /** True when `ref` is pending. */
  has(ref: string): boolean {
    return this.#byRef.has(ref);
  }

  /** Adds `ref` (marker number `number`) with chain end `target`; a ref already pending is left as it is. */
  add(ref: string, number: number, target: number): void {
    if (this.#byRef.has(ref)) return;
    const entry: MutablePending = { ref, number, target };
    this.#byRef.set(ref, entry);
    this.#attach(entry);
    this.#insertOrdered(entry);
  }

  /** Removes `ref` (an alias line for it was read). */
  remove(ref: string): void {
    const entry = this.#byRef.get(ref);
    if (entry === undefined) return;
    this.#byRef.delete(ref);
    this.#detach(entry);
  }

  /**
   * Surface node `from` was shadowed by `to`. A native-like replace (`to` defined) moves the refs whose chain ends
   * at `from` on to `to`; a DCP-class replace (`to` undefined) drops them. Returns how many refs were touched.
   */
  shadowTarget(from: number, to: number | undefined): number {
    const entries = this.#byTarget.get(from);
    if (entries === undefined) return 0;
    this.#byTarget.delete(from);
    for (const entry of entries) {
      if (to === undefined) {
        this.#byRef.delete(entry.ref);
        continue;
      }
      entry.target = to;
      this.#attach(entry);
    }
    return entries.length;
  }

  /**
   * The first `limit` pending refs in number order, without removing them (the alias lines, once logged, remove
   * them). `visit` is called once per entry examined, removed ones included.
   */
  first(limit: number, visit?: () => void): PendingAlias[] {
    const out: PendingAlias[] = [];
    while (this.#head < this.#order.length && !this.#isLive(this.#order[this.#head] as MutablePending)) this.#head += 1;
    if (this.#head > 1024 && this.#head * 2 > this.#order.length) {
      this.#order = this.#order.slice(this.#head);
      this.#head = 0;
    }
    for (let index = this.#head; index < this.#order.length && out.length < limit; index += 1) {
      visit?.();
      const entry = this.#order[index] as MutablePending;
      if (this.#isLive(entry)) out.push({ ref: entry.ref, number: entry.number, target: entry.target });
    }
    return out;
  }

  /** Every pending ref in number order (for snapshots). */
  list(): PendingAlias[] {
    return [...this.#byRef.values()]
      .sort((a, b) => a.number - b.number || (a.ref < b.ref ? -1 : a.ref > b.ref ? 1 : 0))
      .map((entry) => ({ ref: entry.ref, number: entry.number, target: entry.target }));
  }

  #isLive(entry: MutablePending): boolean {
    return this.#byRef.get(entry.ref) === entry;
  }

  #attach(entry: MutablePending): void {
    const list = this.#byTarget.get(entry.target);
    if (list === undefined) this.#byTarget.set(entry.target, [entry]);
    else list.push(entry);
  }

  #detach(entry: MutablePending): void {
    const list = this.#byTarget.get(entry.target);
    if (list === undefined) return;
    const index = list.indexOf(entry);
    if (index !== -1) list.splice(index, 1);
    if (list.length === 0) this.#byTarget.delete(entry.target);
  }

  /** Inserts by number; markers are usually shadowed oldest first, so this is almost always a push. */
  #insertOrdered(entry: MutablePending): void {
    let index = this.#order.length;
    while (index > this.#head && (this.#order[index - 1] as MutablePending).number > entry.number) index -= 1;
    this.#order.splice(index, 0, entry);
  }
}
