import { describe, expect, it } from 'vitest';
import { SessionFormatUnsupportedError, SessionPersistenceCorruptionError } from '../../src/protocol/errors.js';
import { validateStoredSession } from '../../src/protocol/session-validation.js';
import { assistantMessage, logOnly, toolCall, userMessage } from './event-builders.js';

const ID = 'sess-7';
const PATH = '/root/--w--/sess-7/session.jsonl';
const header = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  version: 0,
  id: ID,
  createdAt: 10,
  cwd: '/w',
  delegationDepth: 0,
  ...extra,
});
const at = (type: string, seq: number, data: unknown, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  type,
  seq,
  time: 500 + seq,
  data,
  ...extra,
});

/** Runs the stages and returns the thrown error. */
function failure(storedEvents: unknown[], head: Record<string, unknown> = header(), requestedId = ID): Error {
  try {
    validateStoredSession({ requestedId, header: head, storedEvents, path: PATH });
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected validateStoredSession to throw');
}

/** Asserts a wrapped S-stage failure with this inner `String(error)` text. */
function expectCorruption(error: Error, inner: string, id = ID): void {
  expect(error).toBeInstanceOf(SessionPersistenceCorruptionError);
  expect(error.name).toBe('SessionPersistenceCorruptionError');
  expect(error.message).toBe(`stored session "${id}" failed validation: ${inner}`);
  expect(String(error.cause)).toBe(inner);
}

describe('§9.15 S1–S6', () => {
  it('returns the frozen header and the frozen balanced events (stored + closers)', () => {
    const stored = [
      at('turn/start', 0, { turn: 1 }),
      userMessage(1, 'hi'),
      at('step/start', 2, { turn: 1, step: 1 }),
      assistantMessage(3, [toolCall('c1')]),
    ];
    const head = header();
    const { meta, events } = validateStoredSession({ requestedId: ID, header: head, storedEvents: stored });
    expect(meta).toBe(head);
    expect(Object.isFrozen(meta)).toBe(true);
    expect(events.map((event) => [event.seq, event.type])).toEqual([
      [0, 'turn/start'],
      [1, 'user/message'],
      [2, 'step/start'],
      [3, 'assistant/message'],
      [4, 'tool/result'],
      [5, 'step/end'],
      [6, 'turn/end'],
    ]);
    expect(Object.isFrozen(events)).toBe(true);
    for (const event of events) {
      expect(Object.isFrozen(event)).toBe(true);
      expect(Object.isFrozen(event.data)).toBe(true);
    }
    expect(events.some((event) => event.type === 'session/end-seed')).toBe(false);
  });

  it('with freeze: false (a worker) returns the same balanced events, unfrozen', () => {
    const build = () => [
      at('turn/start', 0, { turn: 1 }),
      userMessage(1, 'hi'),
      at('step/start', 2, { turn: 1, step: 1 }),
      assistantMessage(3, [toolCall('c1')]),
    ];
    const frozen = validateStoredSession({ requestedId: ID, header: header(), storedEvents: build() });
    const loose = validateStoredSession({ requestedId: ID, header: header(), storedEvents: build(), freeze: false });
    expect(loose.events).toEqual(frozen.events);
    expect(Object.isFrozen(loose.events)).toBe(false);
    // The stored events are left as decoded (the synthetic closers are built frozen either way).
    for (const event of loose.events.slice(0, 4)) expect(Object.isFrozen(event)).toBe(false);
  });

  it('S1: identity mismatch is wrapped; a version refusal is not', () => {
    expectCorruption(
      failure([], header({ id: 'other' })),
      'Error: stored session identity mismatch: requested "sess-7", header contains "other"',
    );
    const refusal = failure([at('mode/set', 0, {})], header({ version: 2 }));
    expect(refusal).toBeInstanceOf(SessionFormatUnsupportedError);
    expect(refusal.message).toBe(
      `session "sess-7" uses log format v2, but this harness reads only v0: the log was written by a newer harness — upgrade the harness to open it (raw log: ${PATH})`,
    );
  });

  it('item 91: a mode/set at seq 9 wins over an envelope error at seq 3 (S2 before S6)', () => {
    const stored: unknown[] = [];
    for (let seq = 0; seq < 10; seq++) stored.push(logOnly(seq));
    stored[3] = { ...logOnly(3), extra: true };
    stored[9] = at('mode/set', 9, { mode: 'plan' });
    expectCorruption(failure(stored), 'Error: session "sess-7" contains unsupported legacy mode/set event at seq 9');
  });

  it('item 91: an unknown type without ignorable is refused (§8.3, not wrapped); with ignorable it is accepted', () => {
    const refusal = failure([logOnly(0), at('future/event', 1, {})]);
    expect(refusal).toBeInstanceOf(SessionFormatUnsupportedError);
    expect(refusal.message).toBe(
      `session "sess-7" contains event type "future/event" (seq 1) unknown to this harness and not marked ignorable; refusing to interpret the log — it was likely written by a newer harness (raw log: ${PATH})`,
    );
    const { events } = validateStoredSession({
      requestedId: ID,
      header: header(),
      storedEvents: [logOnly(0), at('future/event', 1, {}, { ignorable: true })],
    });
    expect(events).toHaveLength(2);
  });

  it('item 92: malformed legacy forms are wrapped as "failed validation: Error: …"', () => {
    expectCorruption(
      failure([at('turn/start', 0, { turn: 0, trigger: { kind: 'user' } })]),
      'Error: session "sess-7" contains malformed pre-react-loop turn/start at seq 0',
    );
    expectCorruption(
      failure([at('turn/end', 0, { turn: 1, reason: { kind: 'completed', x: 1 } })]),
      'Error: session "sess-7" contains malformed pre-react-loop turn/end at seq 0',
    );
    expectCorruption(
      failure([at('steering/message', 0, null)]),
      'Error: session "sess-7" contains malformed pre-react-loop steering/message at seq 0',
    );
  });

  it('item 92: migrated events come out in the migrated shape', () => {
    const { events } = validateStoredSession({
      requestedId: ID,
      header: header(),
      storedEvents: [at('steering/message', 0, { turn: 1, content: [], source: { kind: 'user' } }, { surfaceOp: 'append' })],
    });
    expect(JSON.stringify(events[0])).toBe(
      '{"type":"user/message","seq":0,"time":500,"data":{"content":[],"source":{"kind":"user"},"id":"legacy-message:sess-7:0","role":"user"},"surfaceOp":"append"}',
    );
  });

  it('S3 adoption failures are wrapped with the session-event subject', () => {
    expectCorruption(
      failure([at('user/message', 0, { id: 'm', role: 'user', source: {}, content: [] }, { surfaceOp: 'append' })]),
      'Error: session event at seq 0 message has invalid source',
    );
  });

  it('S4 runs before S5: an unknown type beats a closer TypeError', () => {
    expect(failure([at('turn/start', 0, null), at('future/event', 1, {})])).toBeInstanceOf(SessionFormatUnsupportedError);
  });

  it('S5: a TypeError from null data is wrapped with its name', () => {
    expectCorruption(failure([at('turn/start', 0, null)]), "TypeError: Cannot read properties of null (reading 'turn')");
  });

  it('S6: header validation comes before the events', () => {
    expectCorruption(
      failure([{ ...logOnly(0), extra: 1 }], header({ cwd: 'rel' })),
      'Error: session header cwd must be an absolute path, got "rel"',
    );
    expectCorruption(failure([], header({ createdAt: -1 })), 'Error: session header createdAt must be a non-negative safe integer');
  });

  it('S6: envelope and surface errors use the seed texts with the event position', () => {
    expectCorruption(failure([logOnly(0), { ...logOnly(1), extra: 1 }]), 'Error: seed event at index 1 has an invalid event envelope');
    expectCorruption(
      failure([logOnly(0), logOnly(2)]),
      'Error: seed event at index 1 has seq 2 (expected 1); seed must be contiguous from 0',
    );
    expectCorruption(
      failure([at('request/header', 0, { header: { config: { provider: 'p' } } })]),
      'Error: seed request/header at index 0 lacks provider/model',
    );
    expectCorruption(
      failure([userMessage(0, 'x', {})]),
      'Error: invalid seed event at index 0: session event "user/message" is surface-eligible and requires a surfaceOp marker',
    );
  });

  it('S6: a fallback request/header is caught in S2 first, with the session text', () => {
    expectCorruption(
      failure([at('request/header', 0, { header: { config: { provider: 'p', model: 'm' } }, reason: 'fallback' })]),
      'Error: session "sess-7" contains unsupported legacy request/header reason "fallback" at seq 0',
    );
  });

  it('uses the raw requested id in the wrapper', () => {
    const error = failure([], header({ id: 'other' }), 'a"b');
    expect(error.message).toBe(
      'stored session "a"b" failed validation: Error: stored session identity mismatch: requested "a"b", header contains "other"',
    );
  });

  it('scales linearly: 100k events validate quickly', () => {
    const stored: unknown[] = [];
    for (let seq = 0; seq < 100_000; seq++) {
      stored.push(seq % 10 === 0 ? userMessage(seq, `message ${seq}`) : logOnly(seq));
    }
    const started = performance.now();
    const { events } = validateStoredSession({ requestedId: ID, header: header(), storedEvents: stored });
    const elapsed = performance.now() - started;
    expect(events).toHaveLength(100_000);
    expect(elapsed).toBeLessThan(5_000);
  });
});
