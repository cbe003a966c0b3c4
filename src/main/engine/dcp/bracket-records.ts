/**
 * Compaction brackets as DCP sees them (DCP.md §3.1 "brackets", §13.3): one record per `compaction/start`, keyed
 * by its seq, with the summary, checkpoint and end that named it while it was open. Gives the crash
 * classification of the last bracket in O(1) and tells whether a compactionId was ever used (§7.11 rule 4).
 */
import type { SessionEvent } from '../../../protocol/events.js';
import { isEventOf } from '../../../protocol/event-map.js';
import { storedPayload } from '../../../protocol/dcp/stored-payload.js';
import { isCheckpointSource } from '../../../protocol/dcp/checkpoint-source.js';
import type { CompactionClassification } from '../../../protocol/dcp/crash-classification.js';
import { classifyBracketFacts } from '../../../protocol/dcp/crash-classification.js';

/** One bracket. */
export interface BracketRecord {
  readonly startSeq: number;
  readonly compactionId: string;
  /** The start's turn, `null` for a standalone bracket. */
  readonly turn: number | null;
  readonly summarySeq?: number;
  readonly checkpointSeq?: number;
  readonly endSeq?: number;
  /** The `error` of a failed attempt's end. */
  readonly error?: unknown;
  /** True when `session/end-seed` came while it was open. */
  readonly stale: boolean;
}

interface MutableBracket {
  startSeq: number;
  compactionId: string;
  turn: number | null;
  summarySeq?: number;
  checkpointSeq?: number;
  endSeq?: number;
  error?: unknown;
  stale: boolean;
}

/** The brackets of one log, folded event by event. */
export class BracketRecords {
  readonly #byStart = new Map<number, MutableBracket>();
  readonly #ids = new Set<string>();
  #open: MutableBracket | undefined;
  #last: MutableBracket | undefined;
  #lastEndSeedSeq = -1;

  /** The open, non-stale bracket, or `undefined`. */
  get open(): BracketRecord | undefined {
    return this.#open;
  }

  /** True when some `compaction/start` in the log used `compactionId`. */
  hasCompactionId(compactionId: string): boolean {
    return this.#ids.has(compactionId);
  }

  /** The record of the bracket started at `startSeq`. */
  get(startSeq: number): BracketRecord | undefined {
    return this.#byStart.get(startSeq);
  }

  /** Every bracket in start order (for snapshots). */
  list(): BracketRecord[] {
    return [...this.#byStart.values()].map((record) => ({ ...record }));
  }

  /** The §13.3 classification of the last bracket. O(1). */
  classifyLast(): CompactionClassification {
    const last = this.#last;
    if (last === undefined) {
      return classifyBracketFacts({
        compactionId: undefined,
        endAfterStart: false,
        checkpointAfterStart: false,
        summaryAfterStart: false,
        endSeedAfterStart: false,
      });
    }
    return classifyBracketFacts({
      compactionId: last.compactionId,
      endAfterStart: last.endSeq !== undefined,
      checkpointAfterStart: last.checkpointSeq !== undefined,
      summaryAfterStart: last.summarySeq !== undefined,
      endSeedAfterStart: this.#lastEndSeedSeq > last.startSeq,
    });
  }

  /** Folds one event. Bracket records are log-only: a stored log's may lack any field (stored-payload.ts). */
  apply(event: SessionEvent): void {
    if (isEventOf(event, 'compaction/start')) {
      const { compactionId, turn } = storedPayload(event);
      const record: MutableBracket = {
        startSeq: event.seq,
        compactionId: typeof compactionId === 'string' ? compactionId : '',
        turn: typeof turn === 'number' ? turn : null,
        stale: false,
      };
      this.#byStart.set(event.seq, record);
      this.#ids.add(record.compactionId);
      this.#open = record;
      this.#last = record;
    } else if (isEventOf(event, 'compaction/summary')) {
      const open = this.#matchingOpen(storedPayload(event).compactionId);
      if (open !== undefined && open.summarySeq === undefined) open.summarySeq = event.seq;
    } else if (isEventOf(event, 'compaction/end')) {
      const { compactionId, error } = storedPayload(event);
      const open = this.#matchingOpen(compactionId);
      if (open === undefined) return;
      open.endSeq = event.seq;
      if (error !== undefined) open.error = error;
      this.#open = undefined;
    } else if (isEventOf(event, 'session/end-seed')) {
      this.#lastEndSeedSeq = event.seq;
      if (this.#open !== undefined) this.#open.stale = true;
      this.#open = undefined;
    } else if (isEventOf(event, 'user/message') && typeof event.surfaceOp === 'object') {
      // A checkpoint replace naming the open bracket belongs to it.
      const source = event.data.source;
      const open = this.#open;
      if (
        open !== undefined &&
        isCheckpointSource(source) &&
        source.compactionId === open.compactionId &&
        open.checkpointSeq === undefined
      ) {
        open.checkpointSeq = event.seq;
      }
    }
  }

  /** The open bracket when `compactionId` names it. */
  #matchingOpen(compactionId: unknown): MutableBracket | undefined {
    const open = this.#open;
    return open !== undefined && compactionId === open.compactionId ? open : undefined;
  }
}
