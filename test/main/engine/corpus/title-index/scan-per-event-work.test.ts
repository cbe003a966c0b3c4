/**
 * The title scan's per-event work (issue 27: a cold source-cache miss and the search build both run it): the
 * tool-result digest's canonical JSON is written by recursion but stays the text the explicit-stack writer gives (the
 * digests live in persisted checkpoints, so they may never change); the digest is SHA-256 of that text; adopted
 * messages an observer on the main thread sees are still deep-frozen, and the checkpoint's last time is still the
 * JSON text of the last event's `time`, though it is now encoded only when asked for.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../../../../src/protocol/events.js';
import { interruptedTurnClosers } from '../../../../../src/protocol/closers.js';
import { scanTitleLog } from '../../../../../src/workers/titles/title-scan.js';
import { canonicalJson, canonicalJsonDeep, toolResultDigest } from '../../../../../src/workers/titles/tool-result-digest.js';
import { mulberry32 } from '../../../../support/seeded-random.js';

const KEYS = ['a', 'b', 'A', '10', '9', '0', '-1', 'é', '\ud800', 'key with space', '__proto__x', 'content', ''];

/** A random JSON value (as `JSON.parse` makes them: objects, arrays, strings, numbers, booleans, null). */
function jsonValue(next: () => number, depth: number): unknown {
  const kind = Math.floor(next() * (depth > 4 ? 4 : 6));
  switch (kind) {
    case 0:
      return null;
    case 1:
      return next() < 0.5 ? Math.floor(next() * 1e6) - 5e5 : next() * 1e3;
    case 2:
      return next() < 0.5;
    case 3:
      return String.fromCharCode(...Array.from({ length: Math.floor(next() * 6) }, () => Math.floor(next() * 0xffff)));
    case 4:
      return Array.from({ length: Math.floor(next() * 4) }, () => jsonValue(next, depth + 1));
    default: {
      const record: Record<string, unknown> = {};
      for (let index = Math.floor(next() * 5); index > 0; index -= 1) {
        record[KEYS[Math.floor(next() * KEYS.length)] as string] = jsonValue(next, depth + 1);
      }
      return record;
    }
  }
}

/** `[[[…{"k":1}…]]]` nested `depth` deep. */
function nested(depth: number): unknown {
  let value: unknown = { k: 1, j: [true] };
  for (let level = 0; level < depth; level += 1) value = level % 2 === 0 ? [value, level] : { z: value, a: level };
  return value;
}

describe('the tool-result digest', () => {
  it('writes the same canonical text by recursion as with the explicit stack, on 2,000 random JSON values', () => {
    const next = mulberry32(27);
    for (let run = 0; run < 2000; run += 1) {
      const value = jsonValue(next, 0);
      expect(canonicalJson(value)).toBe(canonicalJsonDeep(value));
    }
  });

  it('gives deep payloads (past the recursion bound) and undefined fields the same text as the explicit stack', () => {
    for (const depth of [0, 1, 63, 64, 65, 200, 5000]) expect(canonicalJson(nested(depth))).toBe(canonicalJsonDeep(nested(depth)));
    expect(canonicalJson({ b: undefined, a: [undefined, 1] })).toBe('{"a":[undefined,1],"b":undefined}');
    expect(canonicalJson({ 10: 'x', 9: 'y', a: 'z' })).toBe('{"10":"x","9":"y","a":"z"}');
  });

  it('is SHA-256 (base64) of the canonical text of the payload with its result content blanked', () => {
    const data = {
      turn: 1,
      step: 2,
      message: {
        role: 'tool',
        id: 'm1',
        content: [{ type: 'tool-result', callId: 'c1', content: [{ type: 'text', text: 'long output' }] }],
      },
    };
    const digest = toolResultDigest(data);
    const text = '{"message":{"content":[{"callId":"c1","content":null,"type":"tool-result"}],"id":"m1","role":"tool"},"step":2,"turn":1}';
    expect(digest).toBe(createHash('sha256').update(text, 'utf8').digest('base64'));
    // The same payload with different result text has the same digest (the rule compares everything but content).
    const other = structuredClone(data);
    (other.message.content[0] as { content: unknown }).content = [{ type: 'text', text: 'something else' }];
    expect(toolResultDigest(other)).toBe(digest);
    // Against an independent hash of the text the digest stands for (key order shuffled: canonical order holds).
    const shuffled = { step: 2, message: { content: data.message.content, id: 'm1', role: 'tool' }, turn: 1 };
    expect(toolResultDigest(shuffled)).toBe(digest);
    const changed = { ...data, step: 3 };
    expect(toolResultDigest(changed)).not.toBe(digest);
  });
});

const T0 = 1_767_225_600_000;
const PATH = '/root/--w--/s/session.jsonl';

function log(lines: readonly unknown[]): Uint8Array {
  return Buffer.from(`${lines.map((line) => JSON.stringify(line)).join('\n')}\n`, 'utf8');
}

describe('what the scan still does per event', () => {
  const header = { type: 'session', version: 0, id: 'frozen-1', createdAt: T0, cwd: '/w', delegationDepth: 0 };
  const events = [
    { type: 'turn/start', seq: 0, time: T0, data: { turn: 1 } },
    {
      type: 'user/message',
      seq: 1,
      time: T0 + 1,
      data: { id: 'u1', role: 'user', content: [{ type: 'text', text: 'hello' }], source: { kind: 'user' } },
      surfaceOp: 'append',
    },
    { type: 'turn/end', seq: 2, time: T0 + 2, data: { turn: 1, reason: { kind: 'completed' } } },
  ];

  it('deep-freezes the adopted messages an observer on the main thread is handed', () => {
    const seen: SessionEvent[] = [];
    const result = scanTitleLog({ compression: 'none', path: PATH, bytes: log([header, ...events]), observe: (event) => seen.push(event) });
    expect(result.outcome.kind).toBe('valid');
    const message = seen.find((event) => event.type === 'user/message');
    expect(message).toBeDefined();
    expect(Object.isFrozen(message?.data)).toBe(true);
    expect(Object.isFrozen((message?.data as { content: unknown[] }).content[0])).toBe(true);
  });

  it("keeps the JSON text of the last event's time in the checkpoint (and a missing time as empty text)", () => {
    const result = scanTitleLog({ compression: 'none', path: PATH, bytes: log([header, ...events]) });
    expect(result.checkpoint?.validator.lastTime).toBe(JSON.stringify(T0 + 2));
    const untimed = [events[0], events[1], { type: 'turn/end', seq: 2, data: { turn: 1, reason: { kind: 'completed' } } }];
    const missing = scanTitleLog({ compression: 'none', path: PATH, bytes: log([header, ...untimed]) });
    expect(missing.checkpoint?.validator.lastTime).toBe('');
  });

  it('freezes interrupted-turn closers unless the caller only probes whether the reads throw', () => {
    const open = [{ type: 'turn/start', seq: 0, time: T0, data: { turn: 1 } }] as unknown as SessionEvent[];
    const frozen = interruptedTurnClosers(open);
    expect(frozen.length).toBeGreaterThan(0);
    expect(frozen.every((closer) => Object.isFrozen(closer) && Object.isFrozen(closer.data))).toBe(true);
    const probed = interruptedTurnClosers(open, false);
    expect(probed).toEqual(frozen);
    expect(probed.some((closer) => Object.isFrozen(closer))).toBe(false);
  });
});
