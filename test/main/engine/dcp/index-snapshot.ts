/**
 * Every part of a DCP index as plain data (DCP.md §3.4: everything except pending controls), for comparing an
 * incremental index with a cold replay. Read through the index's folds, so a part a fold adds must be added here.
 */
import type { SessionEvent } from '../../../../src/protocol/events.js';
import type { DcpIndex } from '../../../../src/main/engine/dcp/dcp-index.js';

/** Map entries sorted by key, so two indexes that folded in another order still compare equal. */
function sortedEntries<V>(map: ReadonlyMap<string | number, V>): Array<[string | number, V]> {
  return [...map].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * The index's state as plain data. `events` is the log the index folded; `turnOf` is listed for its surface events.
 * O(log).
 */
export function indexSnapshot(index: DcpIndex, events: readonly SessionEvent[]): Record<string, unknown> {
  const { turns, markers, blocks, calls, replaces, manual, snapshots, brackets, invalidations } = index.folds;
  const turnOf: Array<[number, number]> = [];
  for (const event of events.slice(0, index.eventCount)) {
    if (
      event.surfaceOp !== undefined &&
      (event.type === 'user/message' || event.type === 'assistant/message' || event.type === 'tool/result')
    ) {
      turnOf.push([event.seq, turns.turnOf(event.seq)]);
    }
  }
  return {
    eventCount: index.eventCount,
    openTurn: turns.openTurn,
    lastStartedTurn: turns.lastStartedTurn,
    turnOf,
    markers: sortedEntries(new Map(markers.records().map((marker) => [marker.ref, marker]))),
    markerRefBySeq: sortedEntries(markers.refsBySeq()),
    maxMarkerNumber: markers.maxNumber,
    blocks: blocks.list(),
    blockRefBySeq: sortedEntries(blocks.refsBySeq()),
    maxBlockNumber: blocks.maxNumber,
    diagnostics: blocks.diagnostics(),
    aliases: sortedEntries(markers.aliases()),
    pendingAliases: markers.pending.list(),
    calls: sortedEntries(calls.calls()).map(([, call]) => call.toJSON()),
    results: sortedEntries(calls.results()),
    replaceClasses: sortedEntries(replaces.entries()),
    dedupGroups: calls.dedupGroups.toJSON(),
    errorUnits: calls.errorUnits.toJSON(),
    snapshots: snapshots.list(),
    brackets: brackets.list(),
    openBracket: brackets.open?.startSeq ?? null,
    lastBracketClass: brackets.classifyLast(),
    runningCommands: sortedEntries(manual.running()),
    manualOn: manual.manualOn,
    lastTriggerTurn: manual.lastTriggerTurn ?? null,
    nudge: { ...markers.nudgeState },
    invalidations: invalidations.list(),
  };
}
