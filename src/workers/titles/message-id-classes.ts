/**
 * The `seq → message id` map of SESSION-LOG.md §8.2 (remembered after adoption, read by rule 4c when a
 * pre-identity `tool/result` replaces the node at `surfaceOp.start`), reduced to what can change an
 * inspection's result: whether a seq has an id and whether it is empty. The id's value only matters when the
 * replacement then passes the surface fold, which requires `start` to be a current `tool/result`; the
 * resumable fold keeps those ids itself.
 */

/** What the map holds for one seq. */
export type MessageIdClass = 'none' | 'empty' | 'non-empty';

/** The plain-data state: seqs with a string id, ascending, delta-encoded (small numbers pack small). */
export interface MessageIdCheckpoint {
  readonly nonEmptyDeltas: readonly number[];
  readonly emptyDeltas: readonly number[];
}

function deltas(ascending: readonly number[]): number[] {
  const out = new Array<number>(ascending.length);
  let previous = 0;
  for (let index = 0; index < ascending.length; index++) {
    const value = ascending[index] as number;
    out[index] = value - previous;
    previous = value;
  }
  return out;
}

function undelta(encoded: readonly number[]): number[] {
  const out = new Array<number>(encoded.length);
  let running = 0;
  for (let index = 0; index < encoded.length; index++) {
    running += encoded[index] as number;
    out[index] = running;
  }
  return out;
}

/** True when the ascending array holds `value` (compared with `===`, so `-0` finds `0` as a Map key would). */
function includesSorted(ascending: readonly number[], value: number): boolean {
  let low = 0;
  let high = ascending.length - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const candidate = ascending[middle] as number;
    if (candidate === value) return true;
    if (candidate < value) low = middle + 1;
    else high = middle - 1;
  }
  return false;
}

/** The classes of the remembered message ids, for seqs recorded in ascending order. */
export class MessageIdClasses {
  readonly #nonEmpty: number[];
  readonly #empty: number[];

  private constructor(nonEmpty: number[], empty: number[]) {
    this.#nonEmpty = nonEmpty;
    this.#empty = empty;
  }

  /** An empty map. */
  static empty(): MessageIdClasses {
    return new MessageIdClasses([], []);
  }

  /** Continues from `checkpoint`. */
  static restore(checkpoint: MessageIdCheckpoint): MessageIdClasses {
    return new MessageIdClasses(undelta(checkpoint.nonEmptyDeltas), undelta(checkpoint.emptyDeltas));
  }

  /** The plain-data state (a copy). */
  checkpoint(): MessageIdCheckpoint {
    return { nonEmptyDeltas: deltas(this.#nonEmpty), emptyDeltas: deltas(this.#empty) };
  }

  /** Remembers the id an event at `seq` carries (seqs must be recorded in ascending order). */
  record(seq: number, id: string | undefined): void {
    if (id === undefined) return;
    (id === '' ? this.#empty : this.#nonEmpty).push(seq);
  }

  /** What `messageIds.get(seq)` would return, as a class. */
  classOf(seq: number): MessageIdClass {
    if (includesSorted(this.#nonEmpty, seq)) return 'non-empty';
    if (includesSorted(this.#empty, seq)) return 'empty';
    return 'none';
  }
}
