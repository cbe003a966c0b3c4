/**
 * The full-log recomputation behind `/dcp stats` (DCP.md §15.1 and §14 rule 1), as one pure pass over the log so
 * that it can run in a pool task (§19 D6) or, for a small log, on the calling thread with the same result.
 *
 * Every figure uses the host estimator (`estimateEvent`), which is what the session's meter caches for each surface
 * node; replaces are classified by structure (§3.2) and markers are recognised as the index recognises them (§4.4).
 */
import type { SessionEvent } from '../events.js';
import { isRecord } from '../events.js';
import { SurfaceFold } from '../surface-fold.js';
import { estimateEvent } from '../token-estimator.js';
import type { DcpLedger } from './ledger.js';
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
 * Folds `events` (a whole, valid log in seq order) into the §15.1 ledger and prices each of `windows` (§14 rule 1).
 * O(log + Σ surface length at each window). `poll` is called every few thousand events and may throw to abort.
 */
export function foldLedger(events: readonly SessionEvent[], windows: readonly LedgerWindow[], poll: () => void = () => undefined): LedgerFold {
  const ledger: MutableLedger = { shadowedTokens: 0, checkpointTokens: 0, blockCount: 0, expansionTokens: 0, pruneTokens: 0, pruneReplacements: 0, cleanupTokens: 0, inlineCleanups: 0, markerTokens: 0 };
  const surface = new SurfaceFold();
  // The estimate of every event that joined the surface, by seq (shadowed nodes keep theirs, as in the meter).
  const estimates = new Float64Array(events.length);
  const reReadTokens = new Array<number>(windows.length).fill(0);
  const windowsBySeq = new Map<number, number[]>();
  windows.forEach((window, index) => {
    const list = windowsBySeq.get(window.firstSeq);
    if (list === undefined) windowsBySeq.set(window.firstSeq, [index]);
    else list.push(index);
  });
  for (let index = 0; index < events.length; index += 1) {
    if (index % POLL_EVERY_EVENTS === 0) poll();
    const event = events[index]!;
    const priced = windowsBySeq.get(event.seq);
    if (priced !== undefined) {
      const seqs = surface.surfaceSeqs();
      for (const windowIndex of priced) {
        let total = 0;
        for (let position = windows[windowIndex]!.position; position < seqs.length; position += 1) total += estimates[seqs[position]!]!;
        reReadTokens[windowIndex] = total;
      }
    }
    surface.apply(event);
    const op = event.surfaceOp;
    if (op === undefined) continue;
    const estimate = estimateEvent(event);
    estimates[event.seq] = estimate;
    if (op === 'append') {
      if (event.type === 'user/message' && recognizeMarker(event.data) !== undefined) ledger.markerTokens += estimate;
    } else {
      foldReplace(ledger, event, events[index - 1], estimate);
    }
  }
  return { ledger, reReadTokens, eventCount: events.length };
}
