/**
 * A number per seq, for facts the host computes once when an event joins the surface (its token estimate, its
 * tool-pairing count). Logs have long runs of log-only events between surface nodes, so a plain array indexed by
 * seq would turn sparse and slow; a doubling typed array keeps every read and write O(1).
 */

/** A growable `Float64Array` indexed by seq; unset entries read as 0. */
export class SeqTable {
  #values = new Float64Array(1024);

  /** The value stored for `seq`, or 0 when none was stored (or `seq` is not an index). */
  get(seq: number): number {
    return Number.isInteger(seq) && seq >= 0 && seq < this.#values.length ? (this.#values[seq] as number) : 0;
  }

  /** Stores `value` for `seq` (a non-negative integer), growing the table by doubling when needed. */
  set(seq: number, value: number): void {
    if (seq >= this.#values.length) {
      const grown = new Float64Array(Math.max(seq + 1, this.#values.length * 2));
      grown.set(this.#values);
      this.#values = grown;
    }
    this.#values[seq] = value;
  }
}
