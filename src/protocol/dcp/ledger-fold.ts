/**
 * The full-log recomputation behind `/dcp stats` (DCP.md §15.1 and §14 rule 1), as one pure pass over the log so
 * that it can run in a pool task (§19 D6) or, for a small log, on the calling thread with the same result.
 *
 * Every figure uses the host estimator (`estimateEvent`), which is what the session's meter caches for each surface
 * node; replaces are classified by structure (§3.2) and markers are recognised as the index recognises them (§4.4).
 */
import type { SessionEvent } from '../events.js';
import { isRecord } from '../events.js';
import { SurfaceView } from '../surface-view.js';
import { estimateEvent } from '../token-estimator.js';
import type { DcpLedger } from './ledger.js';
import { EMPTY_LEDGER } from './ledger.js';
import { recognizeMarker } from './marker-recognition.js';
import { classifyReplace } from './replace-class.js';

/** A prefix invalidation to price: its first replace and the surface position it invalidated from. */
export interface LedgerWindow {
  readonly firstSeq: number;
  readonly position: number;
}

/** The result of {@link foldLedger}. */
export interface LedgerFold {
  readonly ledger: DcpLedger;
  /** Per window, in the order given: the tokens re-read from `position` on, on the surface just before `firstSeq`. */
  readonly reReadTokens: readonly number[];
  /** The number of events folded. */
  readonly eventCount: number;
}

/** How many events pass between two calls of the abort poll. */
const POLL_EVERY_EVENTS = 2048;

/** `data.shadowedTokenCount` of a metering event, else 0. */
function claimOf(event: SessionEvent | undefined): number {
  const count = isRecord(event?.data) ? event.data['shadowedTokenCount'] : undefined;
  return typeof count === 'number' ? count : 0;
}

type MutableLedger = { -readonly [K in keyof DcpLedger]: DcpLedger[K] };

/** Adds the §15.1 effect of one replacing surface event, given the event stored right before it. */
function foldReplace(ledger: MutableLedger, event: SessionEvent, previous: SessionEvent | undefined, estimate: number): void {
  const kind = classifyReplace(event, previous).kind;
  const claim = claimOf(previous);
  const afterSummary = previous?.type === 'compaction/summary';
  const afterPrune = previous?.type === 'compaction/prune';
  if (afterSummary && kind === 'dcp-summary') {
    ledger.shadowedTokens += claim;
    ledger.checkpointTokens += estimate;
    ledger.blockCount += 1;
  } else if (afterSummary && kind === 'dcp-expansion') {
    ledger.blockCount += 1;
    ledger.expansionTokens += claim - estimate;
  } else if (afterPrune && (kind === 'dcp-dedup' || kind === 'dcp-purge')) {
    ledger.pruneTokens += claim;
    ledger.checkpointTokens += estimate;
    ledger.pruneReplacements += 1;
  } else if (afterPrune && kind === 'dcp-cleanup') {
    ledger.cleanupTokens += claim - estimate;
    ledger.inlineCleanups += 1;
  }
}

/**
 * The incremental form of {@link foldLedger}: feed the events of one log in seq order with `add`, then read `result`.
 * It keeps only numbers (the surface order, one estimate per seq) and the previous event, so a caller that decodes
 * events one by one lets each of them be collected right after it was folded.
 */
export class LedgerFolder {
  // Every figure starts at the empty log's.
  readonly #ledger: MutableLedger = { ...EMPTY_LEDGER };
  readonly #surface = new SurfaceView();
  /** The estimate of every event that joined the surface, by seq (shadowed nodes keep theirs, as in the meter). */
  #estimates = new Float64Array(1024);
  readonly #windows: readonly LedgerWindow[];
  readonly #windowsBySeq = new Map<number, number[]>();
  readonly #reReadTokens: number[];
  #previous: SessionEvent | undefined;
  #count = 0;

  /** A folder that prices `windows` as it passes their first replace. */
  constructor(windows: readonly LedgerWindow[]) {
    this.#windows = windows;
    this.#reReadTokens = new Array<number>(windows.length).fill(0);
    windows.forEach((window, index) => {
      const list = this.#windowsBySeq.get(window.firstSeq);
      if (list === undefined) this.#windowsBySeq.set(window.firstSeq, [index]);
      else list.push(index);
    });
  }

  /**
   * Folds the next event. The log is trusted to be valid (it is the host's own log).
   *
   * @throws RangeError when the seq is not the next one or a replace names a range that is not on the surface.
   */
  add(event: SessionEvent): void {
    if (event.seq !== this.#count) throw new RangeError(`ledger fold: event seq ${event.seq} is not contiguous; expected ${this.#count}`);
    const priced = this.#windowsBySeq.get(event.seq);
    if (priced !== undefined) this.#price(priced);
    const op = event.surfaceOp;
    if (op !== undefined) {
      const estimate = estimateEvent(event);
      this.#remember(event.seq, estimate);
      if (op === 'append') {
        this.#surface.append(event.seq);
        if (event.type === 'user/message' && recognizeMarker(event.data) !== undefined) this.#ledger.markerTokens += estimate;
      } else {
        const start = this.#surface.positionOf(op.start);
        const end = this.#surface.positionOf(op.end);
        if (start === -1 || end < start)
          throw new RangeError(`ledger fold: the replace at seq ${event.seq} names a range that is not on the surface`);
        this.#surface.replace(start, end, event.seq);
        foldReplace(this.#ledger, event, this.#previous, estimate);
      }
    }
    this.#previous = event;
    this.#count += 1;
  }

  /** The ledger and window prices of the events added so far. */
  result(): LedgerFold {
    return { ledger: { ...this.#ledger }, reReadTokens: [...this.#reReadTokens], eventCount: this.#count };
  }

  /** Sets the re-read tokens of `windowIndexes` from the surface as it stands (just before their first replace). */
  #price(windowIndexes: readonly number[]): void {
    const surface = this.#surface;
    for (const windowIndex of windowIndexes) {
      let total = 0;
      for (let position = this.#windows[windowIndex]!.position; position < surface.length; position += 1)
        total += this.#estimates[surface.at(position)!]!;
      this.#reReadTokens[windowIndex] = total;
    }
  }

  #remember(seq: number, estimate: number): void {
    if (seq >= this.#estimates.length) {
      const grown = new Float64Array(Math.max(seq + 1, this.#estimates.length * 2));
      grown.set(this.#estimates);
      this.#estimates = grown;
    }
    this.#estimates[seq] = estimate;
  }
}

/**
 * Folds `events` (a whole, valid log in seq order) into the §15.1 ledger and prices each of `windows` (§14 rule 1).
 * O(log + Σ surface length at each window). `poll` is called every few thousand events and may throw to abort.
 */
export function foldLedger(
  events: readonly SessionEvent[],
  windows: readonly LedgerWindow[],
  poll: () => void = () => undefined,
): LedgerFold {
  const folder = new LedgerFolder(windows);
  for (let index = 0; index < events.length; index += 1) {
    if (index % POLL_EVERY_EVENTS === 0) poll();
    folder.add(events[index]!);
  }
  return folder.result();
}
