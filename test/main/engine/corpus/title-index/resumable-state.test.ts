/**
 * The plain-data pieces of a title checkpoint (SESSION-LOG.md §10.7): the resumable surface fold agrees with
 * `SurfaceFold` (§5.2) event by event, also when restored from a checkpoint that went through msgpack;
 * errors survive serialization with name, code, message, cause and class; values and texts keep lone
 * surrogates through msgpack; the index file refuses paths it cannot carry.
 */
import fc from 'fast-check';
import { Packr } from 'msgpackr';
import { describe, expect, it } from 'vitest';
import { SessionFormatUnsupportedError, SessionLogError, SessionPersistenceCorruptionError } from '../../../../../src/protocol/errors.js';
import type { SessionEvent } from '../../../../../src/protocol/events.js';
import { SurfaceFold } from '../../../../../src/protocol/surface-fold.js';
import { decodeValue, encodeValue, quoteText, unquoteText } from '../../../../../src/workers/titles/json-text.js';
import { ResumableSurfaceFold, type SurfaceFoldCheckpoint } from '../../../../../src/workers/titles/resumable-surface-fold.js';
import { rebuildError, serializeError } from '../../../../../src/workers/titles/serialized-error.js';
import { canonicalJson, toolResultDigest } from '../../../../../src/workers/titles/tool-result-digest.js';
import { isIndexablePath } from '../../../../../src/main/engine/corpus/title-index/title-index-file.js';

const packr = new Packr({ useRecords: false, mapsAsObjects: true });

function outcome(apply: () => void): string {
  try {
    apply();
    return 'ok';
  } catch (error) {
    return (error as Error).message;
  }
}

function toolResultData(callId: string, text: string, id: string, extra: Record<string, unknown> = {}): unknown {
  return {
    turn: 1,
    step: 1,
    ...extra,
    message: {
      id,
      role: 'user',
      content: [{ type: 'tool-result', toolCallId: callId, content: [{ type: 'text', text }], isError: false }],
      source: { kind: 'tool', callId },
    },
  };
}

/** Generated events for the fold: surface and log-only types, appends, replaces of nearby seqs, provenance of all shapes. */
const foldMoves = fc.array(
  fc.record({
    type: fc.constantFrom('user/message', 'assistant/message', 'tool/result', 'tool/result', 'step/end'),
    op: fc.constantFrom('append', 'replace', 'replace', 'reversed', 'none', 'bad', 'badReplace'),
    back: fc.tuple(fc.nat({ max: 6 }), fc.nat({ max: 3 })),
    provenance: fc.constantFrom('none', 'shadowed', 'shadowed+1', 'empty', 'notArray', 'dup', 'future', 'hole'),
    payload: fc.constantFrom('same', 'content', 'id', 'meta'),
    seqDelta: fc.constantFrom(0, 0, 0, 0, 0, 0, 1),
  }),
  { maxLength: 40 },
);

describe('ResumableSurfaceFold', () => {
  it('agrees with SurfaceFold on every event, resumed from msgpack checkpoints at random points', () => {
    fc.assert(
      fc.property(foldMoves, fc.array(fc.nat({ max: 40 }), { maxLength: 4 }), (moves, restorePoints) => {
        const reference = new SurfaceFold();
        let resumable = ResumableSurfaceFold.empty();
        const applied: SessionEvent[] = [];
        moves.forEach((move, index) => {
          if (restorePoints.includes(index)) {
            resumable = ResumableSurfaceFold.restore(packr.unpack(packr.pack(resumable.checkpoint())) as SurfaceFoldCheckpoint);
          }
          const seq = reference.nextSeq + move.seqDelta;
          const current = reference.surfaceSeqs();
          const end = current[Math.max(0, current.length - 1 - move.back[0])];
          const start = current[Math.max(0, current.length - 1 - move.back[0] - move.back[1])];
          const shadowed = start === undefined ? [] : current.slice(current.indexOf(start), current.indexOf(end as number) + 1);
          const target = start === undefined ? undefined : applied.find((event) => event.seq === start);
          const callId =
            target?.type === 'tool/result' ? (target.data as { message: { source: { callId: string } } }).message.source.callId : `c${seq}`;
          const data =
            move.type === 'tool/result'
              ? toolResultData(
                  callId,
                  move.payload === 'content' ? `new ${seq}` : 'same',
                  move.payload === 'id'
                    ? `other${seq}`
                    : target?.type === 'tool/result'
                      ? (target.data as { message: { id: string } }).message.id
                      : `t${seq}`,
                  move.payload === 'meta' ? { meta: { x: seq } } : {},
                )
              : { seq };
          const provenance: Record<string, unknown> = {
            none: {},
            shadowed: { sourceEventSeqs: shadowed },
            'shadowed+1': { sourceEventSeqs: [...shadowed, ...(seq > 0 ? [seq - 1] : [])] },
            empty: { sourceEventSeqs: [] },
            notArray: { sourceEventSeqs: 3 },
            dup: { sourceEventSeqs: [0, 0] },
            future: { sourceEventSeqs: [seq] },
            // eslint-disable-next-line no-sparse-arrays
            hole: { sourceEventSeqs: [, 0] },
          }[move.provenance] as Record<string, unknown>;
          const surfaceOp = {
            append: { surfaceOp: 'append' },
            replace: { surfaceOp: { op: 'replace', start: start ?? 0, end: end ?? 0 } },
            reversed: { surfaceOp: { op: 'replace', start: end ?? 0, end: start ?? 0 } },
            none: {},
            bad: { surfaceOp: 7 },
            badReplace: { surfaceOp: { op: 'replace', start: -1, end: 0 } },
          }[move.op] as Record<string, unknown>;
          const event = { type: move.type, seq, time: 0, data, ...provenance, ...surfaceOp } as SessionEvent;
          const digest = move.type === 'tool/result' ? toolResultDigest(data) : undefined;
          const expected = outcome(() => reference.apply(event));
          expect(outcome(() => resumable.apply(event, digest))).toBe(expected);
          if (expected === 'ok') applied.push(event);
          expect(resumable.checkpoint().nodes.map((node) => node.seq)).toEqual(reference.surfaceSeqs());
          expect(resumable.checkpoint().nextSeq).toBe(reference.nextSeq);
        });
      }),
      { numRuns: 400 },
    );
  });
});

describe('tool result digest', () => {
  it('ignores key order and the result content, and sees everything else', () => {
    const base = toolResultData('c', 'x', 'id1');
    const reordered = { message: (base as { message: unknown }).message, step: 1, turn: 1 };
    expect(toolResultDigest(reordered)).toBe(toolResultDigest(base));
    expect(toolResultDigest(toolResultData('c', 'completely different', 'id1'))).toBe(toolResultDigest(base));
    expect(toolResultDigest(toolResultData('c', 'x', 'id2'))).not.toBe(toolResultDigest(base));
    expect(toolResultDigest(toolResultData('c', 'x', 'id1', { meta: {} }))).not.toBe(toolResultDigest(base));
  });

  it('canonical JSON sorts keys, keeps array order and tells arrays from objects', () => {
    expect(canonicalJson({ b: [2, { d: 1, c: null }], a: '\ud800' })).toBe('{"a":"\\ud800","b":[2,{"c":null,"d":1}]}');
    expect(canonicalJson([])).not.toBe(canonicalJson({}));
    expect(canonicalJson({ a: undefined })).toBe('{"a":undefined}');
  });
});

describe('serialized errors', () => {
  it('rebuild with the same class, name, code, message and cause, through msgpack', () => {
    const inner = new SessionLogError('SESSION_LOG_INVALID_SURFACE', 'invalid seed event at index 3: x \ud800', {
      cause: new TypeError('inner cause'),
    });
    const cases: Error[] = [
      inner,
      new SessionFormatUnsupportedError('session "\udc00" uses log format v2'),
      new SessionPersistenceCorruptionError('id', inner),
      new TypeError("Cannot read properties of null (reading 'turn')"),
      Object.assign(new Error('decoder failed'), { code: 'ZSTD_ERROR' }),
    ];
    for (const original of cases) {
      const rebuilt = rebuildError(packr.unpack(packr.pack(serializeError(original))) as ReturnType<typeof serializeError>);
      expect(rebuilt.constructor).toBe(original.constructor);
      expect([rebuilt.name, rebuilt.message, (rebuilt as { code?: unknown }).code]).toEqual([
        original.name,
        original.message,
        (original as { code?: unknown }).code,
      ]);
      expect(String(rebuilt)).toBe(String(original));
      const cause = original.cause as Error | undefined;
      expect((rebuilt.cause as Error | undefined)?.message).toBe(cause?.message);
    }
  });

  it('keep the checkpoint form: quoted strings, string codes only, error causes three levels deep, no stack', () => {
    const chain = new Error('e0', {
      cause: new Error('e1', { cause: new Error('e2', { cause: new Error('e3', { cause: new Error('e4') }) }) }),
    });
    const level = (message: string, cause: unknown): unknown => ({ name: '"Error"', message: `"${message}"`, code: null, cause });
    expect(serializeError(chain)).toEqual(level('e0', level('e1', level('e2', level('e3', null)))));
    expect(serializeError(new SessionLogError('SESSION_LOG_CORRUPT', 'x\ud800', { cause: 'not an error' }))).toEqual({
      name: '"Error"',
      message: '"x\\ud800"',
      code: '"SESSION_LOG_CORRUPT"',
      cause: null,
    });
    expect(serializeError(Object.assign(new RangeError('r'), { code: 5 }))).toEqual({
      name: '"RangeError"',
      message: '"r"',
      code: null,
      cause: null,
    });
    const rebuilt = rebuildError(serializeError(chain));
    expect([rebuilt.message, (rebuilt.cause as Error).message, ((rebuilt.cause as Error).cause as Error).message]).toEqual([
      'e0',
      'e1',
      'e2',
    ]);
  });

  it('refuses values that are not errors (the caller then falls back to a full inspection)', () => {
    expect(() => serializeError('a string')).toThrow(TypeError);
  });
});

describe('json text encodings', () => {
  it('keep lone surrogates and undefined through msgpack', () => {
    const values: unknown[] = [undefined, null, 0, 'a\ud800b', { k: ['\udfff'] }, [1, 'x']];
    for (const value of values) {
      expect(decodeValue(packr.unpack(packr.pack(encodeValue(value))) as string)).toEqual(value);
    }
    expect(unquoteText(packr.unpack(packr.pack(quoteText('x\ud800'))) as string)).toBe('x\ud800');
  });

  it('index keys must survive UTF-8', () => {
    expect(isIndexablePath('/root/--w--/a~D800/session.jsonl')).toBe(true);
    expect(isIndexablePath('/root/😀/session.jsonl')).toBe(true);
    expect(isIndexablePath('/root/\ud800/session.jsonl')).toBe(false);
  });
});
