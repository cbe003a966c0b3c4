// The byte format of events crossing threads (ARCHITECTURE.md §2, msgpackr): framed entries that decode
// to a value equal to a structured clone of the event, including the values msgpackr alone would alter.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ENTRY_HEADER_BYTES,
  decodeLogEntries,
  encodeLogEntries,
  encodeLogEntry,
  forEachLogEntry,
  isMsgpackSafe,
} from '../../../src/protocol/wire/log-entry-codec.js';

/** JSON values as `JSON.parse` can produce them, strings over all UTF-16 code units (lone surrogates included). */
const jsonValue = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constant(null),
    fc.boolean(),
    fc.integer({ min: -1e9, max: 1e9 }),
    fc.double({ noNaN: true, noDefaultInfinity: true }).filter((number) => !Object.is(number, -0)),
    fc.string({ unit: 'binary' }),
    fc.array(tie('value'), { maxLength: 5 }),
    fc
      .dictionary(fc.oneof(fc.string({ unit: 'binary' }), fc.constant('__proto__')), tie('value'), { maxKeys: 5 })
      .map((record) => JSON.parse(JSON.stringify(record)) as unknown),
  ),
})).value;

describe('round trips', () => {
  it('every JSON value decodes equal to its structured clone, key order included', () => {
    fc.assert(
      fc.property(fc.array(jsonValue, { maxLength: 8 }), (events) => {
        const decoded = decodeLogEntries(encodeLogEntries(events));
        expect(decoded).toEqual(structuredClone(events));
        expect(JSON.stringify(decoded)).toBe(JSON.stringify(events));
      }),
      { numRuns: 300 },
    );
  });

  it('a lone surrogate and an own __proto__ key survive (they take the JSON-text frame)', () => {
    const event = JSON.parse(
      '{"type":"user/message","data":{"text":"a\\ud800b","__proto__":{"x":1},"long":"' + 'y'.repeat(5000) + '\\udc00"}}',
    ) as Record<string, unknown>;
    expect(isMsgpackSafe(event)).toBe(false);
    const entry = encodeLogEntry(event);
    expect(entry[0]).toBe(1);
    const [decoded] = decodeLogEntries(entry) as [Record<string, Record<string, unknown>>];
    expect(Object.keys(decoded['data'] as object)).toEqual(['text', '__proto__', 'long']);
    expect(Object.getPrototypeOf(decoded['data'])).toBe(Object.prototype);
    expect(decoded).toEqual(event);
    expect(JSON.stringify(decoded)).toBe(JSON.stringify(event));
  });

  it('ordinary events take the msgpackr frame, and each entry decodes on its own', () => {
    const events = Array.from({ length: 100 }, (_, seq) => ({
      type: `t${seq % 7}`,
      seq,
      data: { [`k${seq % 11}`]: seq, nested: [{ y: seq }] },
    }));
    const bytes = encodeLogEntries(events);
    expect(bytes[0]).toBe(0);
    const single = encodeLogEntry(events[57]);
    expect(decodeLogEntries(single)).toEqual([events[57]]);
    expect(decodeLogEntries(bytes)).toEqual(events);
    expect(bytes.buffer.byteLength).toBe(bytes.byteLength);
  });

  it('undefined values keep their keys (as structured clone keeps them)', () => {
    const event = { type: 'x', seq: 0, extra: undefined };
    const [decoded] = decodeLogEntries(encodeLogEntry(event)) as [Record<string, unknown>];
    expect(Object.hasOwn(decoded, 'extra')).toBe(true);
  });
});

describe('framing', () => {
  it('polls every pollEvery entries', () => {
    const bytes = encodeLogEntries(Array.from({ length: 10 }, (_, seq) => ({ seq })));
    let polls = 0;
    expect(forEachLogEntry(bytes, () => undefined, { poll: () => (polls += 1), pollEvery: 3 })).toBe(10);
    expect(polls).toBe(3);
  });

  it('a truncated header, a truncated payload and an unknown tag throw RangeError', () => {
    const entry = encodeLogEntry({ a: 1 });
    expect(() => decodeLogEntries(entry.subarray(0, ENTRY_HEADER_BYTES - 1))).toThrow(
      new RangeError('truncated log entry header at byte 0'),
    );
    expect(() => decodeLogEntries(entry.subarray(0, entry.length - 1))).toThrow(new RangeError('truncated log entry at byte 0'));
    const bad = entry.slice();
    bad[0] = 9;
    expect(() => decodeLogEntries(bad)).toThrow(new RangeError('unknown log entry tag 9 at byte 0'));
  });
});
