import { describe, expect, it } from 'vitest';
import { SessionFormatUnsupportedError, SessionLogError } from '../../src/protocol/errors.js';
import { findRejectedLegacy, findUnknownType, migrateAndAdopt } from '../../src/protocol/legacy.js';
import { expectError, logOnly, userMessage } from './event-builders.js';

const ID = 'sess-1';
const ev = (type: string, seq: number, data: unknown, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  type,
  seq,
  time: 100 + seq,
  data,
  ...extra,
});

/** Migrates `events` and returns the JSON text of the event at `index` (key order included). */
function migratedJson(events: unknown[], index = events.length - 1): string {
  return JSON.stringify(migrateAndAdopt(events, ID)[index]);
}

function expectLegacyError(events: unknown[], message: string): void {
  expectError(() => migrateAndAdopt(events, ID), { message, code: 'SESSION_LOG_LEGACY_FORMAT', type: SessionLogError, name: 'Error' });
}

describe('§8.1 rejected legacy vocabulary', () => {
  const header = (seq: number, data: unknown): Record<string, unknown> => ev('request/header', seq, data);
  const fallback = (seq: number): Record<string, unknown> => header(seq, { header: {}, reason: 'fallback' });

  it('finds nothing in a clean log', () => {
    expect(findRejectedLegacy([logOnly(0), header(1, { header: {} })], ID)).toBeUndefined();
    expect(findRejectedLegacy([], ID)).toBeUndefined();
  });

  it('a request/header-delta anywhere outranks everything, first one reported', () => {
    const error = findRejectedLegacy(
      [fallback(0), ev('mode/set', 1, {}), ev('request/header-delta', 2, {}), ev('request/header-delta', 3, {})],
      ID,
    );
    expect(error).toBeInstanceOf(SessionLogError);
    expect(error?.code).toBe('SESSION_LOG_LEGACY_FORMAT');
    expect(error?.message).toBe('session "sess-1" contains unsupported legacy request/header-delta event at seq 2');
  });

  it('then mode/set (first one), then fallback (first one)', () => {
    expect(findRejectedLegacy([fallback(0), ev('mode/set', 1, {}), ev('mode/set', 2, {})], ID)?.message).toBe(
      'session "sess-1" contains unsupported legacy mode/set event at seq 1',
    );
    expect(findRejectedLegacy([logOnly(0), fallback(1), fallback(2)], ID)?.message).toBe(
      'session "sess-1" contains unsupported legacy request/header reason "fallback" at seq 1',
    );
  });

  it('reads data.reason like dsh: null data on a request/header throws a TypeError unless an earlier rule matched', () => {
    expect(() => findRejectedLegacy([header(0, null), fallback(1)], ID)).toThrow(TypeError);
    expect(() => findRejectedLegacy([header(0, null)], ID)).toThrow(TypeError);
    expect(findRejectedLegacy([fallback(0), header(1, null)], ID)?.message).toBe(
      'session "sess-1" contains unsupported legacy request/header reason "fallback" at seq 0',
    );
    expect(findRejectedLegacy([header(0, null), ev('mode/set', 1, {})], ID)?.message).toBe(
      'session "sess-1" contains unsupported legacy mode/set event at seq 1',
    );
    expect(findRejectedLegacy([header(0, 'text'), header(1, [])], ID)).toBeUndefined();
  });
});

describe('§8.2 rule 1: turn/start with trigger', () => {
  it('drops the trigger, keeping the envelope order', () => {
    expect(migratedJson([ev('turn/start', 0, { turn: 1, trigger: { kind: 'user' } })])).toBe(
      '{"type":"turn/start","seq":0,"time":100,"data":{"turn":1}}',
    );
  });
  it('leaves a current turn/start alone', () => {
    const event = ev('turn/start', 0, { turn: 1 });
    expect(migrateAndAdopt([event], ID)[0]).toBe(event);
  });
  it('rejects malformed pre-react-loop shapes', () => {
    for (const data of [
      { turn: 0, trigger: { kind: 'u' } },
      { turn: 1.5, trigger: { kind: 'u' } },
      { turn: 1, trigger: { kind: 'u' }, x: 1 },
      { turn: 1, trigger: null },
      { turn: 1, trigger: ['u'] },
      { turn: 1, trigger: { kind: '' } },
      { turn: 1, trigger: {} },
    ]) {
      expectLegacyError([logOnly(0), ev('turn/start', 1, data)], 'session "sess-1" contains malformed pre-react-loop turn/start at seq 1');
    }
  });
});

describe('§8.2 rule 2: turn/end reasons', () => {
  const end = (reason: unknown, extra: Record<string, unknown> = {}): Record<string, unknown> =>
    ev('turn/end', 0, { turn: 2, reason, ...extra });
  const M = 'session "sess-1" contains malformed pre-react-loop turn/end at seq 0';

  it('keeps current shapes unchanged (same object)', () => {
    for (const reason of [
      { kind: 'completed' },
      { kind: 'blocked' },
      { kind: 'max-tokens' },
      { kind: 'interrupted' },
      { kind: 'aborted', reason: { kind: 'user' } },
      { kind: 'error', error: { message: 'm', code: 'C' } },
      { kind: 'future', extra: 1 },
    ]) {
      const event = end(reason);
      expect(migrateAndAdopt([event], ID)[0]).toBe(event);
    }
  });
  it('upgrades aborted, disposed and both legacy error forms', () => {
    expect(migratedJson([end({ kind: 'aborted' })])).toBe(
      '{"type":"turn/end","seq":0,"time":100,"data":{"turn":2,"reason":{"kind":"aborted","reason":{"kind":"legacy"}}}}',
    );
    expect(migratedJson([end({ kind: 'disposed' })])).toBe(
      '{"type":"turn/end","seq":0,"time":100,"data":{"turn":2,"reason":{"kind":"aborted","reason":{"kind":"disposed"}}}}',
    );
    expect(
      migratedJson([
        end({ kind: 'error', step: 3, failure: { code: 'RATE', message: 'slow', status: 429, providerRetryAfterMs: 5, requestId: 'r1' } }),
      ]),
    ).toBe(
      '{"type":"turn/end","seq":0,"time":100,"data":{"turn":2,"reason":{"kind":"error","error":{"code":"RATE","message":"slow","status":429,"providerRetryAfterMs":5,"requestId":"r1"}}}}',
    );
    expect(migratedJson([end({ kind: 'error', step: 0, message: 'boom' })])).toBe(
      '{"type":"turn/end","seq":0,"time":100,"data":{"turn":2,"reason":{"kind":"error","error":{"message":"boom","code":"UNKNOWN"}}}}',
    );
    expect(migratedJson([end({ kind: 'error', step: 0, message: 'boom', code: 'E1' })])).toBe(
      '{"type":"turn/end","seq":0,"time":100,"data":{"turn":2,"reason":{"kind":"error","error":{"message":"boom","code":"E1"}}}}',
    );
  });
  it('keeps the data key order with reason replaced in place', () => {
    expect(migratedJson([ev('turn/end', 0, { reason: { kind: 'disposed' }, turn: 1 })])).toBe(
      '{"type":"turn/end","seq":0,"time":100,"data":{"reason":{"kind":"aborted","reason":{"kind":"disposed"}},"turn":1}}',
    );
  });
  it('rejects malformed shapes', () => {
    const bad: Array<Record<string, unknown>> = [
      end({ kind: 'completed' }, { extra: 1 }),
      ev('turn/end', 0, { turn: 0, reason: { kind: 'completed' } }),
      ev('turn/end', 0, { turn: 1 }),
      end(null),
      end({ kind: 5 }),
      end({ kind: 'completed', why: 'x' }),
      end({ kind: 'aborted', by: 'u' }),
      end({ kind: 'disposed', x: 1 }),
      end({ kind: 'error', message: 'no step' }),
      end({ kind: 'error', step: -1, message: 'm' }),
      end({ kind: 'error', step: 1, message: 5 }),
      end({ kind: 'error', step: 1, message: 'm', code: 5 }),
      end({ kind: 'error', step: 1, message: 'm', extra: 1 }),
      end({ kind: 'error', step: 1, failure: { message: 'm', code: 'c', other: 1 } }),
      end({ kind: 'error', step: 1, failure: { message: 'm' } }),
      end({ kind: 'error', step: 1, failure: { message: 'm', code: 'c', status: '500' } }),
    ];
    for (const event of bad) expectLegacyError([event], M);
  });
  it('leaves non-record data alone', () => {
    const event = ev('turn/end', 0, null);
    expect(migrateAndAdopt([event], ID)[0]).toBe(event);
  });
});

describe('§8.2 rule 3: steering/message', () => {
  it('unwraps a wrapped message', () => {
    expect(
      migratedJson([
        ev(
          'steering/message',
          0,
          { turn: 1, message: { id: 'm1', role: 'user', content: [], source: { kind: 'user' } } },
          { surfaceOp: 'append' },
        ),
      ]),
    ).toBe(
      '{"type":"user/message","seq":0,"time":100,"data":{"id":"m1","role":"user","content":[],"source":{"kind":"user"}},"surfaceOp":"append"}',
    );
  });
  it('a wrapped message without id then gets the legacy id (rule 4a)', () => {
    expect(
      migratedJson([ev('steering/message', 0, { turn: 1, message: { content: [], source: { kind: 'user' } } }, { surfaceOp: 'append' })]),
    ).toBe(
      '{"type":"user/message","seq":0,"time":100,"data":{"content":[],"source":{"kind":"user"},"id":"legacy-message:sess-1:0","role":"user"},"surfaceOp":"append"}',
    );
  });
  it('rebuilds content/source into a user message (original order minus turn, then id, role)', () => {
    expect(
      migratedJson([
        logOnly(0),
        ev('steering/message', 1, { source: { kind: 'user' }, turn: 1, content: [{ type: 'text', text: 'hi' }] }, { surfaceOp: 'append' }),
      ]),
    ).toBe(
      '{"type":"user/message","seq":1,"time":101,"data":{"source":{"kind":"user"},"content":[{"type":"text","text":"hi"}],"id":"legacy-message:sess-1:1","role":"user"},"surfaceOp":"append"}',
    );
  });
  it('rejects malformed shapes', () => {
    for (const data of [
      null,
      [],
      'x',
      { turn: '1', content: [], source: {} },
      { turn: 1, content: [], source: {}, extra: 1 },
      { turn: 1, content: [] },
      { turn: 1, message: 'text' },
      { turn: 1.5, message: { id: 'm' } },
    ]) {
      expectLegacyError([ev('steering/message', 0, data)], 'session "sess-1" contains malformed pre-react-loop steering/message at seq 0');
    }
  });
});

describe('§8.2 rule 4: messages from before message ids', () => {
  it('4a user/message gains id and role', () => {
    expect(migratedJson([ev('user/message', 0, { content: [], source: { kind: 'user' } }, { surfaceOp: 'append' })])).toBe(
      '{"type":"user/message","seq":0,"time":100,"data":{"content":[],"source":{"kind":"user"},"id":"legacy-message:sess-1:0","role":"user"},"surfaceOp":"append"}',
    );
  });
  it('4a does not touch a message that has an id, role or message key', () => {
    const withRole = ev('user/message', 0, { content: [], source: { kind: 'user' }, role: 'user' }, { surfaceOp: 'append' });
    expectError(() => migrateAndAdopt([withRole], ID), {
      message: 'session event at seq 0 lacks an identified message',
      code: 'SESSION_LOG_INVALID_MESSAGE',
    });
  });
  it('4b assistant/message content + provenance become a model message after the other keys', () => {
    expect(
      migratedJson([
        ev(
          'assistant/message',
          0,
          { turn: 1, content: [{ type: 'text', text: 'a' }], step: 2, provenance: { provider: 'p', model: 'm' }, usage: { in: 1 } },
          { surfaceOp: 'append' },
        ),
      ]),
    ).toBe(
      '{"type":"assistant/message","seq":0,"time":100,"data":{"turn":1,"step":2,"usage":{"in":1},"message":{"id":"legacy-message:sess-1:0","role":"assistant","content":[{"type":"text","text":"a"}],"source":{"provider":"p","model":"m","kind":"model"}}},"surfaceOp":"append"}',
    );
    // A provenance `kind` key keeps its position and is overwritten.
    expect(
      migratedJson([
        ev('assistant/message', 0, { content: [], provenance: { kind: 'old', provider: 'p', model: 'm' } }, { surfaceOp: 'append' }),
      ]),
    ).toBe(
      '{"type":"assistant/message","seq":0,"time":100,"data":{"message":{"id":"legacy-message:sess-1:0","role":"assistant","content":[],"source":{"kind":"model","provider":"p","model":"m"}}},"surfaceOp":"append"}',
    );
  });
  it('4b a non-record provenance contributes no keys (and then fails adoption)', () => {
    expectError(() => migrateAndAdopt([ev('assistant/message', 0, { content: [], provenance: 'x' }, { surfaceOp: 'append' })], ID), {
      message: 'session event at seq 0 message must have model source',
      code: 'SESSION_LOG_INVALID_MESSAGE',
    });
  });
  it('4c tool/result: a legacy id on append, the remembered id of the start node on replace', () => {
    const events = [
      ev(
        'tool/result',
        0,
        { turn: 1, callId: 'c1', step: 1, content: [{ type: 'text', text: 'long' }], isError: false },
        { surfaceOp: 'append' },
      ),
      ev(
        'tool/result',
        1,
        { turn: 1, step: 1, callId: 'c1', content: [{ type: 'text', text: 'short' }], isError: false },
        { sourceEventSeqs: [0], surfaceOp: { op: 'replace', start: 0, end: 0 } },
      ),
    ];
    const migrated = migrateAndAdopt(events, ID);
    expect(JSON.stringify(migrated[0])).toBe(
      '{"type":"tool/result","seq":0,"time":100,"data":{"turn":1,"step":1,"message":{"id":"legacy-message:sess-1:0","role":"user","content":[{"type":"tool-result","toolCallId":"c1","content":[{"type":"text","text":"long"}],"isError":false}],"source":{"kind":"tool","callId":"c1"}}},"surfaceOp":"append"}',
    );
    expect(JSON.stringify(migrated[1])).toBe(
      '{"type":"tool/result","seq":1,"time":101,"data":{"turn":1,"step":1,"message":{"id":"legacy-message:sess-1:0","role":"user","content":[{"type":"tool-result","toolCallId":"c1","content":[{"type":"text","text":"short"}],"isError":false}],"source":{"kind":"tool","callId":"c1"}}},"sourceEventSeqs":[0],"surfaceOp":{"op":"replace","start":0,"end":0}}',
    );
  });
  it('4c remembers ids of current messages too, and fails adoption when the start node has none', () => {
    const modern = userMessage(0, 'x');
    const replacing = ev(
      'tool/result',
      1,
      { turn: 1, step: 1, callId: 'c', content: [], isError: true },
      { sourceEventSeqs: [0], surfaceOp: { op: 'replace', start: 0, end: 0 } },
    );
    expect((migrateAndAdopt([modern, replacing], ID)[1]!.data as { message: { id: string } }).message.id).toBe('user-0');
    const orphan = ev(
      'tool/result',
      1,
      { turn: 1, step: 1, callId: 'c', content: [], isError: true },
      { sourceEventSeqs: [0], surfaceOp: { op: 'replace', start: 0, end: 0 } },
    );
    expectError(() => migrateAndAdopt([logOnly(0), orphan], ID), {
      message: 'session event at seq 1 lacks an identified message',
      code: 'SESSION_LOG_INVALID_MESSAGE',
    });
  });
});

describe('§8.2 adoption', () => {
  it('checks message shapes with subject "session event at seq <S>" and deep-freezes the message', () => {
    const events = migrateAndAdopt(
      [
        userMessage(0, 'x'),
        ev(
          'assistant/message',
          1,
          {
            turn: 1,
            step: 1,
            message: {
              id: 'a',
              role: 'assistant',
              content: [{ type: 'text', text: 't' }],
              source: { kind: 'model', provider: 'p', model: 'm' },
            },
          },
          { surfaceOp: 'append' },
        ),
      ],
      ID,
    );
    const message = (events[1]!.data as { message: { content: Array<{ text: string }> } }).message;
    expect(Object.isFrozen(message.content[0])).toBe(true);
    expect(Object.isFrozen(events[1]!.data)).toBe(false);
    expect(Object.isFrozen(events[0]!.data)).toBe(true);
    expectError(() => migrateAndAdopt([logOnly(0), ev('user/message', 1, { id: 'm', role: 'assistant' })], ID), {
      message: 'session event at seq 1 message must have role "user"',
      code: 'SESSION_LOG_INVALID_MESSAGE',
    });
  });
});

describe('§8.3 unknown types', () => {
  it('refuses the first unknown type without ignorable, with the raw-log suffix when known', () => {
    const events = [logOnly(0), ev('future/thing', 1, {}), ev('other/thing', 2, {})];
    const error = findUnknownType(events, ID, '/r/p/s/session.jsonl');
    expect(error).toBeInstanceOf(SessionFormatUnsupportedError);
    expect(error?.name).toBe('SessionFormatUnsupportedError');
    expect(error?.message).toBe(
      'session "sess-1" contains event type "future/thing" (seq 1) unknown to this harness and not marked ignorable; refusing to interpret the log — it was likely written by a newer harness (raw log: /r/p/s/session.jsonl)',
    );
    expect(findUnknownType(events, ID)?.message).toBe(
      'session "sess-1" contains event type "future/thing" (seq 1) unknown to this harness and not marked ignorable; refusing to interpret the log — it was likely written by a newer harness',
    );
  });
  it('accepts unknown types marked ignorable: true, and every known type', () => {
    expect(
      findUnknownType([logOnly(0), ev('future/thing', 1, {}, { ignorable: true }), ev('session/end-seed', 2, {})], ID),
    ).toBeUndefined();
    expect(findUnknownType([ev('future/thing', 0, {}, { ignorable: 'true' })], ID)).toBeInstanceOf(SessionFormatUnsupportedError);
  });
});
