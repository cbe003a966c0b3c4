// SESSION-REFERENCE.md §15 item 84: packed chunk rows (SESSION-LOG.md §9.7) — expansion, every malformed
// case with its exact text, and the encoder's run rules and key order.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { SessionLogError } from '../../src/protocol/errors.js';
import type { SessionEvent } from '../../src/protocol/events.js';
import { decodeStorageRecord, encodeStorageBatch } from '../../src/protocol/storage-rows.js';
import { thrown } from '../support/thrown.js';

const lines = (text: string): string[] => text.split('\n').slice(0, -1);

describe('decodeStorageRecord', () => {
  it('expands 3 text deltas with times time0, +dt0, +dt0+dt1 (negative dt allowed), exact key order', () => {
    const row = JSON.parse(
      '{"type":"text-chunks","seq0":5,"time0":1000,"data":{"turn":1,"step":2,"index":0,"dt":[7,-3],"texts":["a","b","c"]}}',
    );
    expect(decodeStorageRecord(row).map((event) => JSON.stringify(event))).toEqual([
      '{"type":"assistant/chunk","seq":5,"time":1000,"data":{"turn":1,"step":2,"chunk":{"type":"text-delta","index":0,"text":"a"}}}',
      '{"type":"assistant/chunk","seq":6,"time":1007,"data":{"turn":1,"step":2,"chunk":{"type":"text-delta","index":0,"text":"b"}}}',
      '{"type":"assistant/chunk","seq":7,"time":1004,"data":{"turn":1,"step":2,"chunk":{"type":"text-delta","index":0,"text":"c"}}}',
    ]);
  });

  it('expands reasoning rows and tool rows with and without name; single-member rows are accepted', () => {
    expect(
      decodeStorageRecord({ type: 'reasoning-chunks', seq0: 0, time0: 1, data: { turn: 1, step: 1, index: 2, dt: [], texts: ['r'] } }),
    ).toEqual([
      { type: 'assistant/chunk', seq: 0, time: 1, data: { turn: 1, step: 1, chunk: { type: 'reasoning-delta', index: 2, text: 'r' } } },
    ]);
    const named = decodeStorageRecord(
      JSON.parse(
        '{"type":"tool-call-chunks","seq0":9,"time0":0,"data":{"turn":1,"step":1,"index":0,"dt":[1],"id":"c1","name":"bash","args":["{","}"]}}',
      ),
    );
    expect(named.map((event) => JSON.stringify(event))).toEqual([
      '{"type":"assistant/chunk","seq":9,"time":0,"data":{"turn":1,"step":1,"chunk":{"type":"tool-call-delta","index":0,"id":"c1","name":"bash","argumentsDelta":"{"}}}',
      '{"type":"assistant/chunk","seq":10,"time":1,"data":{"turn":1,"step":1,"chunk":{"type":"tool-call-delta","index":0,"id":"c1","name":"bash","argumentsDelta":"}"}}}',
    ]);
    const unnamed = decodeStorageRecord(
      JSON.parse('{"type":"tool-call-chunks","seq0":0,"time0":0,"data":{"turn":1,"step":1,"index":0,"dt":[],"id":"c1","args":["x"]}}'),
    );
    expect(JSON.stringify(unnamed)).toBe(
      '[{"type":"assistant/chunk","seq":0,"time":0,"data":{"turn":1,"step":1,"chunk":{"type":"tool-call-delta","index":0,"id":"c1","argumentsDelta":"x"}}}]',
    );
  });

  it('passes every non-row value through as one unvalidated event (same reference)', () => {
    for (const value of [null, 5, 'text', true, [1, 2], { type: 'turn/start' }, { type: 'TEXT-CHUNKS' }, { seq0: 1 }]) {
      const decoded = decodeStorageRecord(value);
      expect(decoded).toHaveLength(1);
      expect(decoded[0]).toBe(value);
    }
  });

  const text = { type: 'text-chunks', seq0: 0, time0: 0, data: { turn: 1, step: 1, index: 0, dt: [1], texts: ['a', 'b'] } };
  const tool = { type: 'tool-call-chunks', seq0: 0, time0: 0, data: { turn: 1, step: 1, index: 0, id: 'c', dt: [1], args: ['a', 'b'] } };
  const withData = (row: typeof text | typeof tool, data: Record<string, unknown>): Record<string, unknown> => ({ ...row, data });
  const cases: ReadonlyArray<readonly [string, Record<string, unknown>, string]> = [
    ['extra envelope key', { ...text, extra: 1 }, 'malformed text-chunks storage row: envelope must be exactly {type, seq0, time0, data}'],
    [
      'missing data',
      { type: 'reasoning-chunks', seq0: 0, time0: 0 },
      'malformed reasoning-chunks storage row: envelope must be exactly {type, seq0, time0, data}',
    ],
    ['negative seq0', { ...text, seq0: -1 }, 'malformed text-chunks storage row: seq0 must be a non-negative safe integer'],
    ['fractional seq0', { ...text, seq0: 1.5 }, 'malformed text-chunks storage row: seq0 must be a non-negative safe integer'],
    ['string time0', { ...text, time0: '0' }, 'malformed text-chunks storage row: time0 must be a safe integer'],
    ['unsafe time0', { ...text, time0: 2 ** 53 }, 'malformed text-chunks storage row: time0 must be a safe integer'],
    ['data not an object', { ...text, data: 'x' }, 'malformed text-chunks storage row: data must be an object'],
    ['data null', { ...text, data: null }, 'malformed text-chunks storage row: data must be an object'],
    ['data an array', { ...text, data: [] }, 'malformed text-chunks storage row: data must be exactly {turn, step, index, dt, texts}'],
    [
      'text data with id',
      withData(text, { ...text.data, id: 'c' }),
      'malformed text-chunks storage row: data must be exactly {turn, step, index, dt, texts}',
    ],
    [
      'tool data without id',
      withData(tool, { turn: 1, step: 1, index: 0, dt: [1], args: ['a', 'b'] }),
      'malformed tool-call-chunks storage row: data must be exactly {turn, step, index, id, name?, dt, args}',
    ],
    [
      'tool data with texts',
      withData(tool, { ...tool.data, texts: [] }),
      'malformed tool-call-chunks storage row: data must be exactly {turn, step, index, id, name?, dt, args}',
    ],
    [
      'numeric id',
      withData(tool, { ...tool.data, id: 1 }),
      'malformed tool-call-chunks storage row: id (and name when present) must be strings',
    ],
    [
      'null name',
      withData(tool, { ...tool.data, name: null }),
      'malformed tool-call-chunks storage row: id (and name when present) must be strings',
    ],
    ['string turn', withData(text, { ...text.data, turn: '1' }), 'malformed text-chunks storage row: turn/step/index must be numbers'],
    [
      'null index',
      withData(tool, { ...tool.data, index: null }),
      'malformed tool-call-chunks storage row: turn/step/index must be numbers',
    ],
    [
      'empty texts',
      withData(text, { ...text.data, dt: [], texts: [] }),
      'malformed text-chunks storage row: texts must be a non-empty string array',
    ],
    [
      'numeric member',
      withData(text, { ...text.data, texts: ['a', 1] }),
      'malformed text-chunks storage row: texts must be a non-empty string array',
    ],
    [
      'args not an array',
      withData(tool, { ...tool.data, args: 'ab' }),
      'malformed tool-call-chunks storage row: args must be a non-empty string array',
    ],
    [
      'fractional dt',
      withData(text, { ...text.data, dt: [0.5] }),
      'malformed text-chunks storage row: dt must be an array of safe integers',
    ],
    ['dt not an array', withData(text, { ...text.data, dt: 1 }), 'malformed text-chunks storage row: dt must be an array of safe integers'],
    [
      'dt too long',
      withData(text, { ...text.data, dt: [1, 2] }),
      'malformed text-chunks storage row: dt length 2 does not match 2 members',
    ],
    [
      'dt too short',
      withData(tool, { ...tool.data, dt: [] }),
      'malformed tool-call-chunks storage row: dt length 0 does not match 2 members',
    ],
    // dsh evaluates seq0 + members − 1 left to right in doubles: 3 members from MAX_SAFE_INTEGER leave the safe range.
    [
      'unsafe member seq',
      { ...withData(text, { ...text.data, dt: [1, 1], texts: ['a', 'b', 'c'] }), seq0: Number.MAX_SAFE_INTEGER },
      'malformed text-chunks storage row: member seqs must stay safe integers',
    ],
    [
      'unsafe member time',
      { ...text, time0: Number.MAX_SAFE_INTEGER },
      'malformed text-chunks storage row: member times must stay safe integers',
    ],
    [
      'unsafe negative member time',
      { ...withData(text, { ...text.data, dt: [-Number.MAX_SAFE_INTEGER] }), time0: -1 },
      'malformed text-chunks storage row: member times must stay safe integers',
    ],
  ];
  it.each(cases)('%s → exact malformed text', (_name, row, message) => {
    const error = thrown(() => decodeStorageRecord(row));
    expect(error).toBeInstanceOf(SessionLogError);
    expect(error).toMatchObject({ code: 'SESSION_LOG_CORRUPT', message });
  });
});

/** An `assistant/chunk` text delta in writer key order. */
function textDelta(
  seq: number,
  time: number,
  text: string,
  over: { turn?: number; step?: number; index?: number; kind?: 'text-delta' | 'reasoning-delta' } = {},
): SessionEvent {
  return {
    type: 'assistant/chunk',
    seq,
    time,
    data: { turn: over.turn ?? 1, step: over.step ?? 1, chunk: { type: over.kind ?? 'text-delta', index: over.index ?? 0, text } },
  };
}

/** A tool-call delta; `name` only when given. */
function toolDelta(seq: number, time: number, argumentsDelta: string, id = 'c1', name?: string): SessionEvent {
  const chunk =
    name === undefined
      ? { type: 'tool-call-delta', index: 0, id, argumentsDelta }
      : { type: 'tool-call-delta', index: 0, id, name, argumentsDelta };
  return { type: 'assistant/chunk', seq, time, data: { turn: 1, step: 1, chunk } };
}

describe('encodeStorageBatch', () => {
  it('packs a run of 3 into one row with keys type, seq0, time0, data / turn, step, index, dt, texts', () => {
    const batch = encodeStorageBatch([textDelta(4, 100, 'a'), textDelta(5, 110, 'b'), textDelta(6, 105, 'c')], true);
    expect(batch).toBe(
      '{"type":"text-chunks","seq0":4,"time0":100,"data":{"turn":1,"step":1,"index":0,"dt":[10,-5],"texts":["a","b","c"]}}\n',
    );
  });

  it('writes tool rows with keys turn, step, index, dt, id, name?, args', () => {
    const named = encodeStorageBatch(
      [toolDelta(0, 1, 'a', 'c1', 'bash'), toolDelta(1, 2, 'b', 'c1', 'bash'), toolDelta(2, 3, 'c', 'c1', 'bash')],
      true,
    );
    expect(named).toBe(
      '{"type":"tool-call-chunks","seq0":0,"time0":1,"data":{"turn":1,"step":1,"index":0,"dt":[1,1],"id":"c1","name":"bash","args":["a","b","c"]}}\n',
    );
    const unnamed = encodeStorageBatch([toolDelta(0, 1, 'a'), toolDelta(1, 2, 'b'), toolDelta(2, 3, 'c')], true);
    expect(unnamed).toBe(
      '{"type":"tool-call-chunks","seq0":0,"time0":1,"data":{"turn":1,"step":1,"index":0,"dt":[1,1],"id":"c1","args":["a","b","c"]}}\n',
    );
  });

  it('leaves runs of 2 verbatim', () => {
    const events = [textDelta(0, 1, 'a'), textDelta(1, 2, 'b'), { type: 'step/end', seq: 2, time: 3, data: { turn: 1, step: 1 } }];
    expect(encodeStorageBatch(events, true)).toBe(events.map((event) => JSON.stringify(event) + '\n').join(''));
  });

  it('splits runs on differing name presence, id, index, turn, step, kind and seq breaks', () => {
    const split = (events: SessionEvent[]): string[] =>
      lines(encodeStorageBatch(events, true)).map((line) => JSON.parse(line).type as string);
    // name present on the first two, absent on the next three: a run of 2 (verbatim) then a row of 3.
    expect(
      split([
        toolDelta(0, 0, 'a', 'c', 'n'),
        toolDelta(1, 0, 'b', 'c', 'n'),
        toolDelta(2, 0, 'c', 'c'),
        toolDelta(3, 0, 'd', 'c'),
        toolDelta(4, 0, 'e', 'c'),
      ]),
    ).toEqual(['assistant/chunk', 'assistant/chunk', 'tool-call-chunks']);
    expect(split([toolDelta(0, 0, 'a', 'c', 'n'), toolDelta(1, 0, 'b', 'c', 'm'), toolDelta(2, 0, 'c', 'c', 'm')])).toEqual([
      'assistant/chunk',
      'assistant/chunk',
      'assistant/chunk',
    ]);
    expect(split([toolDelta(0, 0, 'a', 'x'), toolDelta(1, 0, 'b', 'y'), toolDelta(2, 0, 'c', 'y'), toolDelta(3, 0, 'd', 'y')])).toEqual([
      'assistant/chunk',
      'tool-call-chunks',
    ]);
    expect(split([textDelta(0, 0, 'a'), textDelta(1, 0, 'b', { index: 1 }), textDelta(2, 0, 'c', { index: 1 })])).toEqual([
      'assistant/chunk',
      'assistant/chunk',
      'assistant/chunk',
    ]);
    expect(split([textDelta(0, 0, 'a'), textDelta(1, 0, 'b'), textDelta(2, 0, 'c', { turn: 2 })])).toEqual([
      'assistant/chunk',
      'assistant/chunk',
      'assistant/chunk',
    ]);
    expect(split([textDelta(0, 0, 'a'), textDelta(1, 0, 'b'), textDelta(2, 0, 'c', { step: 2 })])).toEqual([
      'assistant/chunk',
      'assistant/chunk',
      'assistant/chunk',
    ]);
    expect(split([textDelta(0, 0, 'a'), textDelta(1, 0, 'b'), textDelta(2, 0, 'c', { kind: 'reasoning-delta' })])).toEqual([
      'assistant/chunk',
      'assistant/chunk',
      'assistant/chunk',
    ]);
    expect(split([textDelta(0, 0, 'a'), textDelta(1, 0, 'b'), textDelta(3, 0, 'c'), textDelta(4, 0, 'd'), textDelta(5, 0, 'e')])).toEqual([
      'assistant/chunk',
      'assistant/chunk',
      'text-chunks',
    ]);
  });

  it('does not pack events outside the packable shape', () => {
    const extraEnvelopeKey = { ...textDelta(1, 0, 'b'), ignorable: true as const };
    const extraChunkKey: SessionEvent = {
      type: 'assistant/chunk',
      seq: 1,
      time: 0,
      data: { turn: 1, step: 1, chunk: { type: 'text-delta', index: 0, text: 'b', extra: 1 } },
    };
    const stringIndex: SessionEvent = {
      type: 'assistant/chunk',
      seq: 1,
      time: 0,
      data: { turn: 1, step: 1, chunk: { type: 'text-delta', index: '0', text: 'b' } },
    };
    const unsafeTime = textDelta(1, Number.MAX_SAFE_INTEGER + 1, 'b');
    for (const middle of [extraEnvelopeKey, extraChunkKey, stringIndex, unsafeTime]) {
      const events = [textDelta(0, 0, 'a'), middle, textDelta(2, 0, 'c')];
      expect(encodeStorageBatch(events, true)).toBe(events.map((event) => JSON.stringify(event) + '\n').join(''));
    }
    // A time difference outside the safe range ends the run even though both times are safe.
    const far = [
      textDelta(0, -Number.MAX_SAFE_INTEGER, 'a'),
      textDelta(1, Number.MAX_SAFE_INTEGER, 'b'),
      textDelta(2, Number.MAX_SAFE_INTEGER, 'c'),
    ];
    expect(lines(encodeStorageBatch(far, true)).map((line) => JSON.parse(line).type)).toEqual([
      'assistant/chunk',
      'assistant/chunk',
      'assistant/chunk',
    ]);
  });

  it("writes everything verbatim without packChunks, and keeps each event's own key order (closers: surfaceOp first)", () => {
    const closer = { type: 'tool/result', seq: 3, time: 9, data: { turn: 1 }, surfaceOp: 'append' as const, sourceEventSeqs: [2] };
    const run = [textDelta(0, 0, 'a'), textDelta(1, 0, 'b'), textDelta(2, 0, 'c')];
    expect(encodeStorageBatch([...run, closer], false)).toBe([...run, closer].map((event) => JSON.stringify(event) + '\n').join(''));
    expect(lines(encodeStorageBatch([closer], true))[0]).toBe(
      '{"type":"tool/result","seq":3,"time":9,"data":{"turn":1},"surfaceOp":"append","sourceEventSeqs":[2]}',
    );
  });

  it('encodes an empty batch as the empty string', () => {
    expect(encodeStorageBatch([], true)).toBe('');
  });

  it('round-trips: decoding the encoded lines gives back the events (property)', () => {
    const delta = fc.record({
      kind: fc.constantFrom('text-delta', 'reasoning-delta', 'tool-call-delta'),
      turn: fc.integer({ min: 1, max: 2 }),
      index: fc.integer({ min: 0, max: 1 }),
      name: fc.option(fc.constantFrom('a', 'b'), { nil: undefined }),
      dt: fc.integer({ min: -5, max: 50 }),
      text: fc.string(),
      other: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(delta, { maxLength: 40 }), (specs) => {
        let time = 1_700_000_000_000;
        const events: SessionEvent[] = specs.map((spec, seq) => {
          time += spec.dt;
          if (spec.other) return { type: 'step/start', seq, time, data: { turn: spec.turn, step: 1 } };
          const chunk =
            spec.kind === 'tool-call-delta'
              ? spec.name === undefined
                ? { type: spec.kind, index: spec.index, id: 'c', argumentsDelta: spec.text }
                : { type: spec.kind, index: spec.index, id: 'c', name: spec.name, argumentsDelta: spec.text }
              : { type: spec.kind, index: spec.index, text: spec.text };
          return { type: 'assistant/chunk', seq, time, data: { turn: spec.turn, step: 1, chunk } };
        });
        const decoded = lines(encodeStorageBatch(events, true)).flatMap((line) => decodeStorageRecord(JSON.parse(line)));
        expect(decoded.map((event) => JSON.stringify(event))).toEqual(events.map((event) => JSON.stringify(event)));
      }),
    );
  });
});
