/**
 * The whole-log search for retired vocabulary (SESSION-LOG.md §8.1, stage S2) as first hits per rule, so the
 * title index can continue it over appended events (§10.7 "first-hit seqs for each rule of §8.1"). The error
 * itself is produced by `findRejectedLegacy` over the hits alone, which yields the same precedence, texts and
 * `TypeError`s as the search over the whole log.
 */
import { findRejectedLegacy } from '../../protocol/legacy.js';
import { assertNever } from '../../protocol/assert-never.js';

/** What made a `request/header` the third rule's first hit: its `data` is null, missing, or has reason `fallback`. */
export type FallbackHitData = 'null' | 'undefined' | 'fallback';

/** The plain-data state of a {@link LegacyTracker}. */
export interface LegacyCheckpoint {
  /** Seq of the first `request/header-delta` (rule 1). */
  readonly headerDelta: number | null;
  /** Seq of the first `mode/set` (rule 2). */
  readonly modeSet: number | null;
  /** The first `request/header` whose data is unreadable or names the `fallback` reason (rule 3). */
  readonly fallback: { readonly seq: number; readonly data: FallbackHitData } | null;
}

/** The `data` a first hit of rule 3 stands for. */
function fallbackData(hit: FallbackHitData): { data?: unknown } {
  switch (hit) {
    case 'null':
      return { data: null };
    case 'undefined':
      return {};
    case 'fallback':
      return { data: { reason: 'fallback' } };
    default:
      assertNever(hit, 'unknown fallback hit');
  }
}

/** First hits of the three §8.1 rules over stored events fed in seq order. */
export class LegacyTracker {
  #headerDelta: number | null;
  #modeSet: number | null;
  #fallback: LegacyCheckpoint['fallback'];

  private constructor(checkpoint: LegacyCheckpoint) {
    this.#headerDelta = checkpoint.headerDelta;
    this.#modeSet = checkpoint.modeSet;
    this.#fallback = checkpoint.fallback;
  }

  /** No event seen yet. */
  static empty(): LegacyTracker {
    return new LegacyTracker({ headerDelta: null, modeSet: null, fallback: null });
  }

  /** Continues from `checkpoint`. */
  static restore(checkpoint: LegacyCheckpoint): LegacyTracker {
    return new LegacyTracker(checkpoint);
  }

  /** The plain-data state. */
  checkpoint(): LegacyCheckpoint {
    return { headerDelta: this.#headerDelta, modeSet: this.#modeSet, fallback: this.#fallback };
  }

  /** Records `event` (stored, before migration; seq `seq`) if it is the first hit of its rule. */
  observe(event: Readonly<Record<string, unknown>>, seq: number): void {
    // The search stops at the first header-delta, which outranks everything.
    if (this.#headerDelta !== null) return;
    const type = event['type'];
    if (type === 'request/header-delta') {
      this.#headerDelta = seq;
    } else if (type === 'mode/set') {
      this.#modeSet ??= seq;
    } else if (type === 'request/header' && this.#fallback === null) {
      const data = event['data'];
      if (data === null) this.#fallback = { seq, data: 'null' };
      else if (data === undefined) this.#fallback = { seq, data: 'undefined' };
      else if ((data as Readonly<Record<string, unknown>>)['reason'] === 'fallback') this.#fallback = { seq, data: 'fallback' };
    }
  }

  /**
   * The S2 failure of the log seen so far for session `sessionId`: the error `findRejectedLegacy` returns, or
   * `undefined` for a clean log.
   *
   * @throws TypeError as `findRejectedLegacy` does when the winning hit is a `request/header` with null or
   *   missing data.
   */
  result(sessionId: string): Error | undefined {
    const hits: unknown[] = [];
    if (this.#headerDelta !== null) hits.push({ type: 'request/header-delta', seq: this.#headerDelta });
    if (this.#modeSet !== null) hits.push({ type: 'mode/set', seq: this.#modeSet });
    if (this.#fallback !== null) hits.push({ type: 'request/header', seq: this.#fallback.seq, ...fallbackData(this.#fallback.data) });
    return findRejectedLegacy(hits, sessionId);
  }
}
