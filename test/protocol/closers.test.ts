import { describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../src/protocol/events.js';
import { interruptedTurnClosers } from '../../src/protocol/closers.js';
import { assistantMessage, expectError, logOnly, toolCall, toolResult } from './event-builders.js';

const OUTCOME_UNKNOWN =
  'The tool call was interrupted after it was recorded, but no result was durably recorded. Its outcome is unknown. Decide whether to retry from the tool semantics: retry only if the operation is read-only or idempotent; if it may have side effects, first verify external state or ask the user. Do not retry blindly.';
const NOT_STARTED = 'The tool call was interrupted before the Harness recorded it as started. Retry it if it is still needed.';

const at = (type: string, seq: number, data: unknown, time = 1000 + seq): SessionEvent => ({ type, seq, time, data });

describe('§9.12 interrupted-turn closers', () => {
  it('item 88: one call recorded by tool/call and one not → exact closers', () => {
    const events = [
      at('turn/start', 0, { turn: 3 }),
      at('step/start', 1, { turn: 3, step: 1 }),
      assistantMessage(2, [{ type: 'text', text: 'calling' }, toolCall('c1'), toolCall('c2')], { surfaceOp: 'append' }, 3, 1),
      at('tool/call', 3, { turn: 3, step: 1, callId: 'c1', name: 'read_file', arguments: '{}' }),
      at('assistant/chunk', 4, { turn: 3, step: 1, chunk: { type: 'usage' } }, 7777),
    ];
    const closers = interruptedTurnClosers(events);
    expect(closers.map((closer) => JSON.stringify(closer))).toEqual([
      `{"type":"tool/result","seq":5,"time":7777,"data":{"turn":3,"step":1,"message":{"id":"interrupted-tool-result-c1-5","role":"user","source":{"kind":"tool","callId":"c1"},"content":[{"type":"tool-result","toolCallId":"c1","isError":true,"content":[{"type":"text","text":${JSON.stringify(OUTCOME_UNKNOWN)}}]}]},"error":{"name":"ToolOutcomeUnknownError","code":"TOOL_OUTCOME_UNKNOWN"}},"surfaceOp":"append","sourceEventSeqs":[3]}`,
      `{"type":"tool/result","seq":6,"time":7777,"data":{"turn":3,"step":1,"message":{"id":"interrupted-tool-result-c2-6","role":"user","source":{"kind":"tool","callId":"c2"},"content":[{"type":"tool-result","toolCallId":"c2","isError":true,"content":[{"type":"text","text":${JSON.stringify(NOT_STARTED)}}]}]},"error":{"name":"ToolNotStartedError","code":"TOOL_NOT_STARTED"}},"surfaceOp":"append"}`,
      '{"type":"step/end","seq":7,"time":7777,"data":{"turn":3,"step":1}}',
      '{"type":"turn/end","seq":8,"time":7777,"data":{"turn":3,"reason":{"kind":"interrupted"}}}',
    ]);
    expect(Object.keys(closers[0]!)).toEqual(['type', 'seq', 'time', 'data', 'surfaceOp', 'sourceEventSeqs']);
    for (const closer of closers) {
      expect(Object.isFrozen(closer)).toBe(true);
      expect(Object.isFrozen(closer.data)).toBe(true);
    }
    const message = (closers[0]!.data as { message: { content: Array<{ content: unknown[] }> } }).message;
    expect(Object.isFrozen(message.content[0]!.content[0])).toBe(true);
  });

  it('no closers for an empty log, a closed turn, or a log without turns', () => {
    expect(interruptedTurnClosers([])).toEqual([]);
    expect(
      interruptedTurnClosers([at('turn/start', 0, { turn: 1 }), at('turn/end', 1, { turn: 1, reason: { kind: 'completed' } })]),
    ).toEqual([]);
    expect(interruptedTurnClosers([logOnly(0), assistantMessage(1, [toolCall('c')])])).toEqual([]);
  });

  it('an open turn without an open step closes with turn/end only', () => {
    const closers = interruptedTurnClosers([
      at('turn/start', 0, { turn: 1 }),
      at('step/start', 1, { turn: 1, step: 1 }),
      at('step/end', 2, { turn: 1, step: 1 }),
    ]);
    expect(closers.map((closer) => JSON.stringify(closer))).toEqual([
      '{"type":"turn/end","seq":3,"time":1002,"data":{"turn":1,"reason":{"kind":"interrupted"}}}',
    ]);
  });

  it('answered calls and calls before step/end or turn/start are forgotten', () => {
    const events = [
      at('turn/start', 0, { turn: 1 }),
      at('step/start', 1, { turn: 1, step: 1 }),
      assistantMessage(2, [toolCall('old')], { surfaceOp: 'append' }, 1, 1),
      at('step/end', 3, { turn: 1, step: 1 }),
      at('step/start', 4, { turn: 1, step: 2 }),
      assistantMessage(5, [toolCall('done'), toolCall('open')], { surfaceOp: 'append' }, 1, 2),
      toolResult(6, 'done', 'ok', { surfaceOp: 'append' }, 1, 2),
      at('tool/call', 7, { callId: 'unknown' }),
    ];
    const closers = interruptedTurnClosers(events);
    expect(closers.map((closer) => closer.type)).toEqual(['tool/result', 'step/end', 'turn/end']);
    expect((closers[0]!.data as { message: { id: string } }).message.id).toBe('interrupted-tool-result-open-8');
    expect(closers[0]!.sourceEventSeqs).toBeUndefined();
    expect(closers[1]!.data).toEqual({ turn: 1, step: 2 });
  });

  it('reading a field of null data throws the native TypeError (turn/start, step/start, tool/call)', () => {
    expect(() => interruptedTurnClosers([at('turn/start', 0, null)])).toThrow(TypeError);
    expect(() => interruptedTurnClosers([at('turn/start', 0, { turn: 1 }), at('step/start', 1, null)])).toThrow(TypeError);
    expect(() => interruptedTurnClosers([at('turn/start', 0, { turn: 1 }), at('tool/call', 1, null)])).toThrow(TypeError);
    expect(() => interruptedTurnClosers([at('turn/start', 0, { turn: 1 }), at('turn/end', 1, null)])).not.toThrow();
  });

  it('closers are adopted: a call id that is not a string fails the tool-source rule', () => {
    const events = [at('turn/start', 0, { turn: 1 }), assistantMessage(1, [{ type: 'tool-call', id: 7, name: 'x', arguments: '{}' }])];
    expectError(() => interruptedTurnClosers(events), {
      message: 'session event at seq 2 message must have tool source',
      code: 'SESSION_LOG_INVALID_MESSAGE',
    });
  });
});
