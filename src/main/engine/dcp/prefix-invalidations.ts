/**
 * Prefix-invalidation records (DCP.md §14 rule 1). Any replace, by any writer, changes the model-visible prefix
 * from its position on; appends never do. Replaces of one request window (the events between two consecutive
 * `step/start` events) form one record. Token figures are left to the stats renderer, which reads the log.
 */
import { isEventOf } from '../../../protocol/event-map.js';
import { isDcpClass } from '../../../protocol/dcp/replace-class.js';
import type { IndexStep } from './index-step.js';

/** Who caused the replaces of one window. */
export type InvalidationCause = 'dcp' | 'native' | 'mixed';

/** One prefix invalidation. */
export interface PrefixInvalidation {
  /** The first replace of the window. */
  readonly firstSeq: number;
  /** The minimum surface position any replace of the window took. */
  readonly position: number;
  /** The surface length just before the window's first replace. */
  readonly surfaceLengthBefore: number;
  /** `dcp` when every replace has a DCP class, `native` when none does, else `mixed`. */
  readonly cause: InvalidationCause;
}

interface OpenRecord {
  firstSeq: number;
  position: number;
  surfaceLengthBefore: number;
  dcpReplaces: number;
  otherReplaces: number;
}

function causeOf(record: OpenRecord): InvalidationCause {
  if (record.otherReplaces === 0) return 'dcp';
  return record.dcpReplaces === 0 ? 'native' : 'mixed';
}

function frozenRecord(record: OpenRecord): PrefixInvalidation {
  return { firstSeq: record.firstSeq, position: record.position, surfaceLengthBefore: record.surfaceLengthBefore, cause: causeOf(record) };
}

/** The records of one log, folded event by event. */
export class PrefixInvalidations {
  readonly #records: OpenRecord[] = [];
  /** The record of the current request window, once it has a replace. */
  #current: OpenRecord | undefined;

  /** Folds one event: a `step/start` closes the window, a replace joins the window's record. */
  apply(step: IndexStep): void {
    if (isEventOf(step.event, 'step/start')) this.closeWindow();
    const replace = step.replace;
    if (replace === undefined) return;
    const surfaceLengthBefore = step.host.surface.length - 1 + replace.delta.shadowed.length;
    this.recordReplace(step.event.seq, replace.delta.position, surfaceLengthBefore, isDcpClass(replace.classified.kind));
  }

  /** A `step/start`: the next replace opens a new record. */
  closeWindow(): void {
    this.#current = undefined;
  }

  /** Folds one replace at `position`; `surfaceLengthBefore` is the surface length just before it. */
  recordReplace(seq: number, position: number, surfaceLengthBefore: number, isDcp: boolean): void {
    let record = this.#current;
    if (record === undefined) {
      record = { firstSeq: seq, position, surfaceLengthBefore, dcpReplaces: 0, otherReplaces: 0 };
      this.#records.push(record);
      this.#current = record;
    }
    record.position = Math.min(record.position, position);
    if (isDcp) record.dcpReplaces += 1;
    else record.otherReplaces += 1;
  }

  /** The number of records. */
  get count(): number {
    return this.#records.length;
  }

  /** Every record, oldest first. */
  list(): PrefixInvalidation[] {
    return this.#records.map(frozenRecord);
  }

  /** The newest `count` records, oldest first. */
  recent(count: number): PrefixInvalidation[] {
    return this.#records.slice(Math.max(0, this.#records.length - count)).map(frozenRecord);
  }
}
