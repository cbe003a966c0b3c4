/**
 * DCP's cold replay reads log-only payloads through `storedPayload` (src/protocol/dcp/stored-payload.ts): a stored
 * log from another writer may hold any value there, and the typed reads must fold such a record as "field absent",
 * never crash the replay.
 */
import { describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../../../src/protocol/events.js';
import { storedPayload } from '../../../../src/protocol/dcp/stored-payload.js';
import type { TypedEvent } from '../../../../src/protocol/event-map.js';
import { replayDcpIndex } from '../../../../src/main/engine/dcp/cold-replay.js';

function event(seq: number, type: string, data: unknown): SessionEvent {
  return { type, seq, time: 0, data };
}

describe('odd log-only records in a stored log', () => {
  it('storedPayload reads a non-record payload as an empty record and a record as itself', () => {
    expect(storedPayload(event(0, 'tool/call', null) as TypedEvent<'tool/call'>)).toEqual({});
    expect(storedPayload(event(0, 'tool/call', ['x']) as TypedEvent<'tool/call'>)).toEqual({});
    expect(storedPayload(event(0, 'tool/call', { callId: 7 }) as TypedEvent<'tool/call'>).callId).toBe(7);
  });

  it('a cold replay folds null, array, string and mistyped log-only payloads without throwing, as absent fields', () => {
    const log = [
      event(0, 'turn/start', { turn: '1' }),
      event(1, 'tool/call', null),
      event(2, 'tool/call', { callId: 5, name: 'read', arguments: '{}' }),
      event(3, 'command/run', ['dcp']),
      event(4, 'command/done', 'done'),
      event(5, 'compaction/start', null),
      event(6, 'compaction/summary', [1, 2]),
      event(7, 'compaction/end', 42),
      event(8, 'request/header', { header: 'odd' }),
      event(9, 'turn/end', null),
    ];
    const index = replayDcpIndex(log, { manualDefault: false, nudgeMinRatio: 0.6 });
    expect(index.eventCount).toBe(10);
    // `turn: '1'` is not a number: the turn is not opened; the end closes whatever is open.
    expect(index.folds.turns.lastStartedTurn).toBe(0);
    expect(index.openTurn).toBeNull();
    // A call without a string id is not a call.
    expect(index.folds.calls.calls().size).toBe(0);
    // The command pair has no usable commandId: it is remembered under "undefined" and its done finds it.
    expect(index.manualOn).toBe(false);
    // A start without an id opens a bracket named ''; the end's payload names no id, so it stays open.
    expect(index.brackets.list()).toEqual([{ startSeq: 5, compactionId: '', turn: null, stale: false }]);
    expect(index.brackets.open?.startSeq).toBe(5);
  });
});
