/**
 * The crash-classification oracle of DCP.md §13.3 for tests, computed independently of
 * src/protocol/dcp/crash-classification.ts: where each bracket's events sit in a log, and the class
 * a prefix of that log must get.
 */
import type { SessionEvent } from '../../../../src/protocol/events.js';
import { isRecord } from '../../../../src/protocol/events.js';
import type { CompactionClass } from '../../../../src/protocol/dcp/crash-classification.js';
import { isCheckpointSource } from '../../../../src/protocol/dcp/checkpoint-source.js';

/** Where one bracket's events sit in the full log (indexes; `undefined` when the bracket has none). */
export interface BracketPositions {
  readonly id: string;
  readonly start: number;
  summary?: number;
  checkpoint?: number;
  end?: number;
}

/** The brackets of a log with unique compaction ids (true of this scenario), found from the event shapes of §13.3. */
export function bracketPositions(events: readonly SessionEvent[]): BracketPositions[] {
  const byId = new Map<string, BracketPositions>();
  events.forEach((event, index) => {
    const data = isRecord(event.data) ? event.data : {};
    const id =
      event.type === 'user/message' && typeof event.surfaceOp === 'object' && isCheckpointSource(data['source'])
        ? (data['source'] as { compactionId: unknown }).compactionId
        : data['compactionId'];
    if (typeof id !== 'string') return;
    if (event.type === 'compaction/start') byId.set(id, { id, start: index });
    const entry = byId.get(id);
    if (entry === undefined) return;
    if (event.type === 'compaction/summary') entry.summary = index;
    else if (event.type === 'compaction/end') entry.end = index;
    else if (event.type === 'user/message') entry.checkpoint = index;
  });
  return [...byId.values()];
}

/**
 * §13.3's table for a recovered prefix of `length` stored events (closers are never bracket events). `afterLoad`:
 * the host seed load appends `session/end-seed` after every stored event (HOST.md §2.1), so an orphan is stale.
 */
export function expectedClass(brackets: readonly BracketPositions[], length: number, afterLoad: boolean): CompactionClass {
  const last = brackets.filter((bracket) => bracket.start < length).at(-1);
  if (last === undefined) return 'none';
  const has = (index: number | undefined): boolean => index !== undefined && index < length;
  if (has(last.end)) return has(last.checkpoint) ? 'committed' : 'failed-attempt';
  if (has(last.checkpoint)) return 'recovered-unclosed';
  if (has(last.summary)) return 'summary-without-replace';
  return afterLoad ? 'stale-orphan-start' : 'live-orphan-start';
}
