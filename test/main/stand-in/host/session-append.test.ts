// Session append and seeding (HOST.md §2.1, §2.2, §3.1, §3.2, §3.7, §3.8).
import { describe, expect, it } from 'vitest';
import { SessionFormatUnsupportedError } from '../../../../src/protocol/errors.js';
import type { SessionEvent } from '../../../../src/protocol/events.js';
import { InMemoryLiveRegistry } from '../../../../src/main/engine/corpus/live-registry.js';
import { SessionAppendError } from '../../../../src/main/stand-in/host/session-append-error.js';
import { Session } from '../../../../src/main/stand-in/host/session.js';
import { createUserMessage, freezeMessage } from '../../../../src/protocol/user-message.js';
import { appendRaw, assistantData, expectThrow, headerFor, newSession, openStep, userData } from './host-builders.js';

describe('append basics (§2.2)', () => {
  it('assigns seq = events.length and time from the clock, in writer key order', () => {
    const session = newSession();
    const first = session.append('session/title', { title: 't', messageSeqs: [], source: { kind: 'user' } });
    const second = session.append('user/message', userData('hi'), { sourceEventSeqs: [0], surfaceOp: 'append' });
    expect(first.seq).toBe(0);
    expect(second.seq).toBe(1);
    expect(first.time).toBe(5_000);
    expect(second.time).toBe(5_001);
    expect(Object.keys(second)).toEqual(['type', 'seq', 'time', 'data', 'sourceEventSeqs', 'surfaceOp']);
    expect(Object.keys(first)).toEqual(['type', 'seq', 'time', 'data']);
    expect(session.events).toEqual([first, second]);
  });

  it('deep-freezes the stored event and never aliases mutable caller data', () => {
    const session = newSession();
    const data = userData('hi');
    const event = session.append('user/message', data, { surfaceOp: 'append' });
    expect(event.data).not.toBe(data);
    expect(Object.isFrozen(event)).toBe(true);
    expect(Object.isFrozen(event.data.content[0])).toBe(true);
    (data.content as unknown as Array<{ text: string }>)[0]!.text = 'changed';
    expect(session.deriveMessages()[0]!.content).toEqual([{ type: 'text', text: 'hi' }]);
  });

  it('stores an already deep-frozen message as the same object', () => {
    const session = newSession();
    const message = createUserMessage({ source: { kind: 'user' }, content: [{ type: 'text', text: 'x' }] });
    expect(session.append('user/message', message, { surfaceOp: 'append' }).data).toBe(message);
  });

  it('createUserMessage: frozen, key order source, content, role, id, UUID id, caller input untouched', () => {
    const input = { source: { kind: 'user' }, content: [{ type: 'text', text: 'x' }] };
    const message = createUserMessage(input);
    expect(Object.keys(message)).toEqual(['source', 'content', 'role', 'id']);
    expect(message.role).toBe('user');
    expect(message.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(Object.isFrozen(message.content[0])).toBe(true);
    expect(Object.isFrozen(input.content[0])).toBe(false);
    expect(createUserMessage(input).id).not.toBe(message.id);
  });

  it('freezeMessage clones, freezes and keeps the id', () => {
    const original = { id: 'keep', role: 'user' as const, source: { kind: 'user' }, content: [{ type: 'text', text: 'x' }] };
    const frozen = freezeMessage(original);
    expect(frozen).not.toBe(original);
    expect(frozen).toEqual(original);
    expect(Object.isFrozen(frozen.content)).toBe(true);
    expect(Object.isFrozen(original.content)).toBe(false);
  });

  it('is a LiveSession: header and events can be attached to the live registry', () => {
    const session = newSession('live-1');
    session.append('user/message', userData('a'), { surfaceOp: 'append' });
    const registry = new InMemoryLiveRegistry();
    registry.attach(session);
    expect(registry.get(session.header.id)?.events).toHaveLength(1);
    expect(session.header).toEqual(headerFor('live-1'));
    expect(Object.isFrozen(session.header)).toBe(true);
  });
});

describe('§3.1 known event types', () => {
  it('HOST §13 item 1: an unknown type throws HOST_UNKNOWN_EVENT_TYPE and the log is unchanged', () => {
    const session = newSession();
    session.append('user/message', userData('a'), { surfaceOp: 'append' });
    const error = expectThrow(() => appendRaw(session, 'dcp/marker', {}), {
      message: 'unknown session event type "dcp/marker"',
      code: 'HOST_UNKNOWN_EVENT_TYPE',
      name: 'SessionAppendError',
    });
    expect(error).toBeInstanceOf(SessionAppendError);
    expect(session.events).toHaveLength(1);
    expect(session.surface.length).toBe(1);
    // The next append still gets the next seq: nothing was consumed.
    expect(session.append('session/title', { title: 't', messageSeqs: [], source: { kind: 'user' } }).seq).toBe(1);
  });

  it('a live append nesting deeper than the one documented limit is refused with SESSION_LOG_TOO_DEEP, never a RangeError', () => {
    const nest = (depth: number): unknown => {
      let value: unknown = 'leaf';
      for (let level = 0; level < depth; level++) value = level % 2 === 0 ? [value] : { v: value };
      return value;
    };
    for (const depth of [600, 20_000]) {
      const session = newSession();
      let error: (Error & { code?: unknown }) | undefined;
      try {
        appendRaw(session, 'session/title', { title: 't', messageSeqs: [], source: { kind: 'user' }, extra: nest(depth) });
      } catch (thrown) {
        error = thrown as Error & { code?: unknown };
      }
      expect(error).toBeInstanceOf(SessionAppendError);
      expect(error?.code).toBe('HOST_INVALID_EVENT');
      expect((error?.cause as { code?: unknown }).code).toBe('SESSION_LOG_TOO_DEEP');
      expect(error?.message).toMatch(/the limit is 512/);
      expect(session.events).toEqual([]);
    }
    // Within the limit the same shape is an ordinary event.
    const session = newSession();
    expect(appendRaw(session, 'session/title', { title: 't', messageSeqs: [], source: { kind: 'user' }, extra: nest(400) }).seq).toBe(0);
  });

  it('a live append may not carry ignorable', () => {
    const session = newSession();
    expectThrow(() => appendRaw(session, 'session/title', {}, { ignorable: true }), {
      message: 'session event "session/title" cannot be appended as ignorable',
      code: 'HOST_INVALID_EVENT',
    });
  });

  it('seed: an unknown ignorable event is kept and ignored by the surface; without ignorable the seed is refused', () => {
    const kept = { type: 'future/thing', seq: 0, time: 1, data: { x: 1 }, ignorable: true };
    const session = Session.create('s', {
      header: headerFor('s'),
      seed: [kept, { type: 'user/message', seq: 1, time: 2, data: userData('a'), surfaceOp: 'append' }],
    });
    expect(session.events[0]).toBe(kept);
    expect(session.surface.length).toBe(1);
    expect(session.surface.at(0)).toBe(1);
    let thrown: unknown;
    try {
      Session.create('s', { header: headerFor('s'), seed: [{ type: 'future/thing', seq: 0, time: 1, data: {} }] });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(SessionFormatUnsupportedError);
    expect((thrown as Error).message).toBe(
      'session "s" contains event type "future/thing" (seq 0) unknown to this harness and not marked ignorable; refusing to interpret the log — it was likely written by a newer harness',
    );
  });
});

describe('§3.2 SESSION-LOG writer rules and fold, messages unchanged', () => {
  const cases: Array<{ name: string; run: (session: Session) => unknown; message: string }> = [
    {
      name: 'non-JSON data',
      run: (s) => appendRaw(s, 'session/title', { title: undefined }),
      message: 'session event "session/title" carries non-JSON-serializable data',
    },
    {
      name: 'legacy header-delta',
      run: (s) => appendRaw(s, 'request/header-delta', {}),
      message: 'unknown session event type "request/header-delta"',
    },
    {
      name: 'fallback header',
      run: (s) => s.append('request/header', { header: { config: { provider: 'p', model: 'm' } }, reason: 'fallback' }),
      message: 'session event "request/header" uses unsupported legacy request/header reason "fallback"',
    },
    {
      name: 'non-JSON metadata',
      run: (s) => s.append('user/message', userData('a'), { surfaceOp: 'append', sourceEventSeqs: [Number.NaN] }),
      message: 'session event "user/message" carries non-JSON-serializable surface metadata',
    },
    {
      name: 'missing surfaceOp',
      run: (s) => s.append('user/message', userData('a')),
      message: 'session event "user/message" is surface-eligible and requires a surfaceOp marker',
    },
    {
      name: 'surfaceOp on a log-only type',
      run: (s) => appendRaw(s, 'session/title', {}, { surfaceOp: 'append' }),
      message: 'session event "session/title" is not surface-eligible and cannot carry surfaceOp',
    },
    {
      name: 'replace start not on the surface',
      run: (s) => s.append('user/message', userData('a'), { surfaceOp: { op: 'replace', start: 7, end: 7 }, sourceEventSeqs: [0] }),
      message: 'surface replace: start seq 7 not found in surface',
    },
    {
      name: 'provenance not earlier',
      run: (s) => s.append('user/message', userData('a'), { surfaceOp: 'append', sourceEventSeqs: [0] }),
      message: 'sourceEventSeqs must reference earlier events: 0 >= current seq 0',
    },
  ];
  for (const { name, run, message } of cases) {
    it(`${name}: HOST_INVALID_EVENT with the SESSION-LOG text (unknown types are §3.1 first)`, () => {
      const session = newSession();
      const error = expectThrow(() => run(session), { message });
      expect(error.code).toBe(message.startsWith('unknown session event type') ? 'HOST_UNKNOWN_EVENT_TYPE' : 'HOST_INVALID_EVENT');
      expect(session.events).toHaveLength(0);
    });
  }

  it('keeps the SESSION-LOG error as the cause', () => {
    const session = newSession();
    const error = expectThrow(() => session.append('user/message', userData('a')), {
      message: 'session event "user/message" is surface-eligible and requires a surfaceOp marker',
    });
    expect((error.cause as { code?: unknown }).code).toBe('SESSION_LOG_INVALID_SURFACE');
  });

  it('checks message shapes on live appends so that every written log reloads', () => {
    const session = newSession();
    expectThrow(
      () => appendRaw(session, 'user/message', { source: { kind: 'user' }, content: [], role: 'user' }, { surfaceOp: 'append' }),
      {
        message: 'session event at seq 0 lacks an identified message',
        code: 'HOST_INVALID_EVENT',
      },
    );
    expectThrow(() => appendRaw(session, 'request/header', { header: { config: { provider: 'p' } } }), {
      message: 'seed request/header at index 0 lacks provider/model',
      code: 'HOST_INVALID_EVENT',
    });
  });
});

describe('seeding (§2.1, §3.8)', () => {
  it('appends session/end-seed {} after a seed, unless the seed already ends with one', () => {
    const seed = [{ type: 'user/message', seq: 0, time: 1, data: userData('a'), surfaceOp: 'append' }];
    const session = Session.create('s', { header: headerFor('s'), seed: structuredClone(seed), now: () => 99 });
    expect(session.events.map((event) => [event.type, event.seq, event.time])).toEqual([
      ['user/message', 0, 1],
      ['session/end-seed', 1, 99],
    ]);
    expect(session.events[1]!.data).toEqual({});
    const again = Session.create('s', { header: headerFor('s'), seed: structuredClone(session.events) });
    expect(again.events).toHaveLength(2);
  });

  it('a new session has no seed and no end-seed marker', () => {
    expect(newSession().events).toHaveLength(0);
  });

  it('rejects the whole seed on a SESSION-LOG §2.3 failure, with its text', () => {
    const seed = [
      { type: 'user/message', seq: 0, time: 1, data: userData('a'), surfaceOp: 'append' },
      { type: 'user/message', seq: 2, time: 1, data: userData('b'), surfaceOp: 'append' },
    ];
    expectThrow(() => Session.create('s', { header: headerFor('s'), seed }), {
      message: 'seed event at index 1 has seq 2 (expected 1); seed must be contiguous from 0',
      code: 'HOST_INVALID_EVENT',
    });
    expectThrow(
      () =>
        Session.create('s', {
          header: headerFor('s'),
          seed: [{ type: 'user/message', seq: 0, time: 1, data: userData('a'), surfaceOp: { op: 'replace', start: 0, end: 0 } }],
        }),
      {
        message: 'invalid seed event at index 0: surface replace: start seq 0 not found in surface',
        code: 'HOST_INVALID_EVENT',
      },
    );
  });

  it('keeps seed times and ignores turn/step numbering, but not the structure', () => {
    const seed: SessionEvent[] = [
      { type: 'turn/start', seq: 0, time: 10, data: { turn: 7 } },
      { type: 'step/start', seq: 1, time: 11, data: { turn: 7, step: 4 } },
      { type: 'step/end', seq: 2, time: 12, data: { turn: 7, step: 4 } },
      { type: 'turn/end', seq: 3, time: 13, data: { turn: 7, reason: { kind: 'completed' } } },
      { type: 'turn/start', seq: 4, time: 14, data: { turn: 3 } },
      { type: 'turn/end', seq: 5, time: 15, data: { turn: 3, reason: { kind: 'completed' } } },
    ];
    const session = Session.create('s', { header: headerFor('s'), seed: structuredClone(seed) });
    expect(session.events.slice(0, 6).map((event) => event.time)).toEqual([10, 11, 12, 13, 14, 15]);
    expect(session.highestTurn()).toBe(7);
    // Live numbering resumes above every turn of the log.
    expectThrow(() => session.append('turn/start', { turn: 7 }), {
      message: 'turn/start violates turn/step order (open turn none, open step none)',
      code: 'HOST_TURN',
    });
    session.append('turn/start', { turn: 8 });
    const broken = structuredClone(seed).slice(0, 2);
    broken.push({ type: 'turn/end', seq: 2, time: 12, data: { turn: 7, reason: { kind: 'completed' } } });
    expectThrow(() => Session.create('s', { header: headerFor('s'), seed: broken }), {
      message: 'turn/end violates turn/step order (open turn 7, open step 4)',
      code: 'HOST_TURN',
    });
  });

  it('lets a crash closer turn/end {interrupted} close a turn in a seed', () => {
    const seed = [
      { type: 'turn/start', seq: 0, time: 1, data: { turn: 1 } },
      { type: 'turn/end', seq: 1, time: 1, data: { turn: 1, reason: { kind: 'interrupted' } } },
    ];
    expect(Session.create('s', { header: headerFor('s'), seed }).openTurn()).toBeNull();
  });

  it('validates the header per SESSION-LOG §7.2', () => {
    expectThrow(() => Session.create('other', { header: headerFor('s') }), {
      message: 'session header id "s" does not match session id "other"',
    });
  });
});

describe('accessors (§2.5)', () => {
  it('openTurn / openStep follow the turn markers', () => {
    const session = newSession();
    expect(session.openTurn()).toBeNull();
    expect(session.openStep()).toBeNull();
    session.append('turn/start', { turn: 1 });
    expect(session.openTurn()).toEqual({ turn: 1 });
    expect(session.openStep()).toBeNull();
    session.append('step/start', { turn: 1, step: 1 });
    expect(session.openStep()).toEqual({ turn: 1, step: 1 });
    session.append('step/end', { turn: 1, step: 1 });
    session.append('turn/end', { turn: 1, reason: { kind: 'completed' } });
    expect(session.openTurn()).toBeNull();
  });

  it('requestContext reads the latest request/header config and the model registry', () => {
    const session = newSession('s', { contextWindowOf: (provider, model) => (provider === 'p' && model === 'big' ? 128_000 : undefined) });
    expect(session.requestContext()).toBeUndefined();
    session.append('request/header', { header: { config: { provider: 'p', model: 'small' }, system: '', tools: [] } });
    expect(session.requestContext()).toEqual({ provider: 'p', model: 'small' });
    expect(Object.keys(session.requestContext()!)).toEqual(['provider', 'model']);
    session.append('request/header', { header: { config: { provider: 'p', model: 'big' }, system: '', tools: [] } });
    expect(session.requestContext()).toEqual({ provider: 'p', model: 'big', contextWindow: 128_000 });
  });

  it('deriveMessages skips assistant messages with empty content; deriveEventMessage does not', () => {
    const session = newSession();
    openStep(session, 1, 1);
    const user = session.append('user/message', userData('a'), { surfaceOp: 'append' });
    const empty = session.append('assistant/message', assistantData(1, 1, []), { surfaceOp: 'append' });
    const log = session.append('session/title', { title: 't', messageSeqs: [], source: { kind: 'user' } });
    expect(session.deriveMessages()).toEqual([user.data]);
    expect(session.deriveMessages()[0]).toBe(user.data);
    expect(session.deriveEventMessage(empty)).toBe((empty.data as { message: unknown }).message);
    expect(session.deriveEventMessage(log)).toBeUndefined();
    expect(Object.isFrozen(session.deriveMessages())).toBe(true);
    expect(session.deriveMessages()).toBe(session.deriveMessages());
  });
});
