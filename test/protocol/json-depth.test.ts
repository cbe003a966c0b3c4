/**
 * The nesting limit of SESSION-LOG.md §9.15a: the depth measure, the early-exit check, the typed error and its
 * message. Expected depths come from an independent definition — the deepest run of unclosed brackets in the value's
 * `JSON.stringify` text, counted outside strings — or from how a value was built.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SessionLogError } from '../../src/protocol/errors.js';
import {
  assertEventDepth,
  assertJsonDepth,
  eventDepth,
  exceedsEventDepth,
  exceedsJsonDepth,
  jsonDepth,
  MAX_EVENT_DEPTH,
  MIN_TOO_DEEP_LINE_BYTES,
  tooDeepError,
} from '../../src/protocol/json-depth.js';
import { thrown } from '../support/thrown.js';
import { jsonTextDepth } from '../support/json-text-depth.js';

const textDepth = jsonTextDepth;

/** `depth` levels, alternating arrays and objects, around a string leaf. */
function nested(depth: number): unknown {
  let value: unknown = 'leaf';
  for (let level = 0; level < depth; level++) value = level % 2 === 0 ? [value] : { k: value };
  return value;
}

/** An event whose `data` nests exactly `depth` levels. */
function eventWithData(depth: number, seq = 7): Record<string, unknown> {
  return { type: 'tool/call', seq, time: 1, data: nested(depth) };
}

describe('jsonDepth (SESSION-LOG.md §9.15a)', () => {
  it('counts levels of arrays and objects: primitives 0, {} 1, {"a":[1]} 2', () => {
    expect(jsonDepth(null)).toBe(0);
    expect(jsonDepth('x')).toBe(0);
    expect(jsonDepth(3)).toBe(0);
    expect(jsonDepth({})).toBe(1);
    expect(jsonDepth([])).toBe(1);
    expect(jsonDepth({ a: [1] })).toBe(2);
    expect(jsonDepth([1, [2, [3]], { a: 1 }])).toBe(3);
  });

  it('equals the bracket depth of the JSON text for random JSON values', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 12 }), (value) => {
        expect(jsonDepth(value)).toBe(textDepth(JSON.stringify(value)));
      }),
      { numRuns: 300, seed: 9150 },
    );
  });

  it('measures 1,000,000 levels without overflowing the stack (explicit stack)', () => {
    expect(jsonDepth(nested(1_000_000))).toBe(1_000_000);
    expect(exceedsJsonDepth(nested(1_000_000), MAX_EVENT_DEPTH)).toBe(true);
  });

  it('reports a cycle as unbounded (Infinity); the early-exit check ends on it too', () => {
    const cyclic: Record<string, unknown> = { a: [] };
    (cyclic['a'] as unknown[]).push(cyclic);
    expect(jsonDepth(cyclic)).toBe(Infinity);
    expect(exceedsJsonDepth(cyclic, 10)).toBe(true);
  });

  it('counts a shared (non-cyclic) value along every path', () => {
    const shared = { x: [1] };
    expect(jsonDepth({ a: shared, b: [shared] })).toBe(textDepth(JSON.stringify({ a: shared, b: [shared] })));
  });
});

describe('exceedsJsonDepth / exceedsEventDepth', () => {
  it('agrees with jsonDepth > limit around the limit', () => {
    for (const depth of [0, 1, 2, 510, 511, 512, 513, 514]) {
      for (const limit of [1, 2, 511, 512, 513]) {
        expect(exceedsJsonDepth(nested(depth), limit), `${depth} vs ${limit}`).toBe(depth > limit);
      }
    }
  });

  it('judges an event by the depth inside its record: data nesting 512 passes, 513 does not', () => {
    expect(MAX_EVENT_DEPTH).toBe(512);
    expect(eventDepth(eventWithData(512))).toBe(512);
    expect(exceedsEventDepth(eventWithData(511))).toBe(false);
    expect(exceedsEventDepth(eventWithData(512))).toBe(false);
    expect(exceedsEventDepth(eventWithData(513))).toBe(true);
    expect(eventDepth({ type: 'x', data: {} })).toBe(1);
    expect(eventDepth({ type: 'x', data: 'text' })).toBe(0);
  });

  it('no line shorter than MIN_TOO_DEEP_LINE_BYTES can hold a too-deep record', () => {
    // The most compact too-deep record: {"d":[[[…]]]} with empty innermost brackets.
    const compact = `{"d":${'['.repeat(MAX_EVENT_DEPTH + 1)}${']'.repeat(MAX_EVENT_DEPTH + 1)}}`;
    expect(exceedsEventDepth(JSON.parse(compact))).toBe(true);
    expect(compact.length).toBeGreaterThanOrEqual(MIN_TOO_DEEP_LINE_BYTES);
    expect(compact.length).toBe(MIN_TOO_DEEP_LINE_BYTES + 4);
  });
});

describe('assertEventDepth / assertJsonDepth', () => {
  it('passes an event at the limit', () => {
    expect(() => assertEventDepth(eventWithData(MAX_EVENT_DEPTH))).not.toThrow();
  });

  it('throws SESSION_LOG_TOO_DEEP naming type, seq, depth, limit, line and path', () => {
    const error = thrown(() => assertEventDepth(eventWithData(3000, 41), { line: 42, path: '/r/p/s/session.jsonl' })) as SessionLogError;
    expect(error).toBeInstanceOf(SessionLogError);
    expect(error.name).toBe('Error');
    expect(error.code).toBe('SESSION_LOG_TOO_DEEP');
    expect(error.message).toBe(
      'session event "tool/call" at seq 41 nests 3000 levels of arrays and objects; the limit is 512 (event line 42 of "/r/p/s/session.jsonl")',
    );
  });

  it('names a packed row by its seq0 and leaves out what is not known', () => {
    const error = thrown(() => assertEventDepth({ type: 'text-chunks', seq0: 5, data: nested(600) })) as SessionLogError;
    expect(error.message).toBe('session event "text-chunks" at seq 5 nests 600 levels of arrays and objects; the limit is 512');
    expect(thrown(() => assertEventDepth([nested(600)])) as SessionLogError).toMatchObject({
      message: 'session event nests 600 levels of arrays and objects; the limit is 512',
    });
  });

  it('describes a cyclic event as nesting without end', () => {
    const data: unknown[] = [];
    data.push(data);
    expect((thrown(() => assertEventDepth({ type: 't', seq: 1, data })) as Error).message).toBe(
      'session event "t" at seq 1 nests without end (a cycle); the limit is 512',
    );
  });

  it('assertJsonDepth checks the value itself against any limit', () => {
    expect(() => assertJsonDepth(nested(10), 10)).not.toThrow();
    const error = thrown(() => assertJsonDepth(nested(11), 10, { subject: 'session event "x" data' })) as SessionLogError;
    expect(error.code).toBe('SESSION_LOG_TOO_DEEP');
    expect(error.message).toBe('session event "x" data nests 11 levels of arrays and objects; the limit is 10');
    expect(tooDeepError(700, { subject: 'session header', path: '/a' }).message).toBe(
      'session header nests 700 levels of arrays and objects; the limit is 512 ("/a")',
    );
  });
});
