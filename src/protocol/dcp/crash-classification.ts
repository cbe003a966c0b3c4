/**
 * Crash classification of the last compaction bracket (DCP.md §13.3, seed decision E-03; the seven classes are
 * fixed). Only events after the last `compaction/start` S count, matched by its compactionId X, because ids may
 * repeat in old logs. The decision (busy or not) follows from the class and staleness.
 */
import { isRecord } from '../events.js';
import type { SessionEvent } from '../events.js';
import { isCheckpointSource } from './checkpoint-source.js';

/** The seven classes. */
export type CompactionClass =
  | 'none'
  | 'committed'
  | 'failed-attempt'
  | 'recovered-unclosed'
  | 'summary-without-replace'
  | 'stale-orphan-start'
  | 'live-orphan-start';

/** What is known about the last bracket: the facts the classification reads. */
export interface LastBracketFacts {
  /** The compactionId of the last start, `undefined` when the log has no `compaction/start`. */
  readonly compactionId: string | undefined;
  /** A `compaction/end` with that id after the start. */
  readonly endAfterStart: boolean;
  /** A replacing `user/message` with a checkpoint source of that id after the start. */
  readonly checkpointAfterStart: boolean;
  /** A `compaction/summary` with that id after the start. */
  readonly summaryAfterStart: boolean;
  /** A `session/end-seed` after the start. */
  readonly endSeedAfterStart: boolean;
}

/** The classification and its decision. */
export interface CompactionClassification {
  readonly class: CompactionClass;
  /** No end and an end-seed after the start. */
  readonly stale: boolean;
  /** No end and not stale: compress fails busy, strategies skip, expansion and recompression fail busy. */
  readonly busy: boolean;
  readonly compactionId: string | undefined;
}

/** Classifies from the facts (§13.3 table, first matching row wins). */
export function classifyBracketFacts(facts: LastBracketFacts): CompactionClassification {
  const { compactionId } = facts;
  if (compactionId === undefined) return { class: 'none', stale: false, busy: false, compactionId };
  const stale = !facts.endAfterStart && facts.endSeedAfterStart;
  const busy = !facts.endAfterStart && !stale;
  let kind: CompactionClass;
  if (facts.endAfterStart) kind = facts.checkpointAfterStart ? 'committed' : 'failed-attempt';
  else if (facts.checkpointAfterStart) kind = 'recovered-unclosed';
  else if (facts.summaryAfterStart) kind = 'summary-without-replace';
  else if (facts.endSeedAfterStart) kind = 'stale-orphan-start';
  else kind = 'live-orphan-start';
  return { class: kind, stale, busy, compactionId };
}

function compactionIdOf(event: SessionEvent): unknown {
  return isRecord(event.data) ? event.data['compactionId'] : undefined;
}

/** A replacing `user/message` whose checkpoint source names `compactionId`; a user/message's `data` is the message itself. */
function isCheckpointOf(event: SessionEvent, compactionId: string): boolean {
  if (event.type !== 'user/message' || typeof event.surfaceOp !== 'object') return false;
  const source = isRecord(event.data) ? event.data['source'] : undefined;
  return isCheckpointSource(source) && source['compactionId'] === compactionId;
}

/** Collects the facts of the last bracket from a log: one backward scan to the last start, one forward scan after it. */
export function lastBracketFacts(events: readonly SessionEvent[]): LastBracketFacts {
  let startIndex = events.length - 1;
  while (startIndex >= 0 && events[startIndex]!.type !== 'compaction/start') startIndex -= 1;
  const id = startIndex >= 0 ? compactionIdOf(events[startIndex]!) : undefined;
  const facts = {
    compactionId: undefined as string | undefined,
    endAfterStart: false,
    checkpointAfterStart: false,
    summaryAfterStart: false,
    endSeedAfterStart: false,
  };
  if (startIndex < 0) return facts;
  // A start without a string id still opens a bracket; nothing can match it, so it stays unclosed.
  facts.compactionId = typeof id === 'string' ? id : '';
  for (let index = startIndex + 1; index < events.length; index += 1) {
    const event = events[index]!;
    if (event.type === 'session/end-seed') facts.endSeedAfterStart = true;
    else if (typeof id !== 'string') continue;
    else if (event.type === 'compaction/end' && compactionIdOf(event) === id) facts.endAfterStart = true;
    else if (event.type === 'compaction/summary' && compactionIdOf(event) === id) facts.summaryAfterStart = true;
    else if (isCheckpointOf(event, id)) facts.checkpointAfterStart = true;
  }
  return facts;
}

/** `classifyCompaction(events)` (§13.3). */
export function classifyCompaction(events: readonly SessionEvent[]): CompactionClassification {
  return classifyBracketFacts(lastBracketFacts(events));
}
