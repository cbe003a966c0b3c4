import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dcpCheckpointSource, isCheckpointSource } from '../../../src/protocol/dcp/checkpoint-source.js';
import { compressMeta, decodeDcpMeta, encodeDcpMeta, expansionMeta, recompressMeta } from '../../../src/protocol/dcp/dcp-meta.js';
import type { DcpMetaDecodeResult } from '../../../src/protocol/dcp/dcp-meta.js';

const valid = {
  v: 1,
  kind: 'summary',
  blockRef: 'b1',
  mode: 'range',
  topic: 'auth refactor',
  startRef: 'm0001',
  endRef: 'm0003',
  authorMessageId: 'msg-1',
  compressCallId: 'c9',
  consumedBlockRefs: [],
  protectedKinds: ['tool:read'],
};
const source = (dcp: unknown) => ({ kind: 'plugin', plugin: 'compact', compactionId: 'dcp-c9-0', dcp });

describe('§6.3 metadata encoding', () => {
  it('writes the keys of a compress block in the exact order, endRef present, recompressedFrom absent', () => {
    const meta = compressMeta({
      blockRef: 'b1',
      topic: 'auth refactor',
      startRef: 'm0001',
      endRef: 'm0003',
      authorMessageId: 'msg-1',
      compressCallId: 'c9',
      consumedBlockRefs: [],
      protectedKinds: ['tool:read'],
    });
    expect(JSON.stringify(meta)).toBe(
      '{"v":1,"kind":"summary","blockRef":"b1","mode":"range","topic":"auth refactor","startRef":"m0001","endRef":"m0003","authorMessageId":"msg-1","compressCallId":"c9","consumedBlockRefs":[],"protectedKinds":["tool:read"]}',
    );
  });

  it('expansion and recompress columns', () => {
    expect(JSON.stringify(expansionMeta('b1', 'b2'))).toBe(
      '{"v":1,"kind":"expansion","blockRef":"b2","mode":"range","topic":"semantic expansion","startRef":"b1","endRef":"b2","authorMessageId":"dcp-command","compressCallId":"dcp-expansion-b2","consumedBlockRefs":["b1"],"protectedKinds":[]}',
    );
    expect(JSON.stringify(recompressMeta('b1', 'b2', 'b3', ['user']))).toBe(
      '{"v":1,"kind":"summary","blockRef":"b3","mode":"range","topic":"recompression","startRef":"b2","authorMessageId":"dcp-command","compressCallId":"dcp-recompress-b3","consumedBlockRefs":["b2"],"protectedKinds":["user"],"recompressedFrom":"b1"}',
    );
  });

  it('the checkpoint source is {kind, plugin, compactionId, dcp} in that order', () => {
    const built = dcpCheckpointSource('dcp-c9-0', decodeOk(source(valid)));
    expect(Object.keys(built)).toEqual(['kind', 'plugin', 'compactionId', 'dcp']);
    expect(isCheckpointSource(built)).toBe(true);
    expect(isCheckpointSource({ kind: 'plugin', plugin: 'dsh-dcp' })).toBe(false);
  });
});

function decodeOk(input: unknown) {
  const result = decodeDcpMeta(input);
  if (!result.ok) throw new Error(`expected ok, got ${result.code}`);
  return result.meta;
}

function decodeErr(input: unknown): { code: string; message: string } {
  const result = decodeDcpMeta(input) as Extract<DcpMetaDecodeResult, { ok: false }>;
  expect(result.ok).toBe(false);
  return { code: result.code, message: result.message };
}

describe('§18 item 36 / §6.4 decoder and diagnostics', () => {
  it('v = 2 → UNSUPPORTED_VERSION with the version in the message', () => {
    expect(decodeErr(source({ ...valid, v: 2 }))).toEqual({
      code: 'UNSUPPORTED_VERSION',
      message: 'dcp metadata version 2 is not supported',
    });
  });

  it('a native checkpoint (no dcp) → MISSING_DCP_META; dcp undefined too', () => {
    expect(decodeErr({ kind: 'plugin', plugin: 'compact', compactionId: 'x' })).toEqual({
      code: 'MISSING_DCP_META',
      message: 'checkpoint has no dcp metadata',
    });
    expect(decodeErr({ kind: 'plugin', plugin: 'compact', dcp: undefined }).code).toBe('MISSING_DCP_META');
  });

  it('not a checkpoint source → NOT_COMPACT_SOURCE', () => {
    for (const input of [null, 'x', [], { kind: 'user' }, { kind: 'plugin', plugin: 'dsh-dcp', dcp: valid }]) {
      expect(decodeErr(input)).toEqual({ code: 'NOT_COMPACT_SOURCE', message: 'source is not a compaction checkpoint' });
    }
  });

  it('dcp not a plain object → UNSUPPORTED_VERSION', () => {
    expect(decodeErr(source(null)).code).toBe('UNSUPPORTED_VERSION');
    expect(decodeErr(source([1])).code).toBe('UNSUPPORTED_VERSION');
    expect(decodeErr(source('v1')).code).toBe('UNSUPPORTED_VERSION');
    expect(decodeErr(source({ ...valid, v: '1' })).code).toBe('UNSUPPORTED_VERSION');
  });

  it('the first field that breaks §6.3 decides the code, with message dcp.<field> is invalid', () => {
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ kind: 'other' }, 'INVALID_KIND', 'kind'],
      [{ blockRef: 'b0' }, 'INVALID_BLOCK_REF', 'blockRef'],
      [{ mode: 'message', blockRef: 'x' }, 'INVALID_BLOCK_REF', 'blockRef'],
      [{ mode: 'slice' }, 'INVALID_MODE', 'mode'],
      [{ topic: '' }, 'INVALID_TOPIC', 'topic'],
      [{ topic: 'x'.repeat(201) }, 'INVALID_TOPIC', 'topic'],
      [{ startRef: 'm'.repeat(33) }, 'INVALID_START_REF', 'startRef'],
      [{ endRef: '' }, 'INVALID_END_REF', 'endRef'],
      [{ authorMessageId: '' }, 'INVALID_AUTHOR', 'authorMessageId'],
      [{ compressCallId: 5 }, 'INVALID_CALL', 'compressCallId'],
      [{ consumedBlockRefs: ['b1', 'm0001'] }, 'INVALID_CONSUMED', 'consumedBlockRefs'],
      [{ consumedBlockRefs: 'b1' }, 'INVALID_CONSUMED', 'consumedBlockRefs'],
      [{ protectedKinds: [1] }, 'INVALID_PROTECTED', 'protectedKinds'],
      [{ recompressedFrom: 'x' }, 'INVALID_RECOMPRESSED', 'recompressedFrom'],
    ];
    for (const [patch, code, field] of cases) {
      expect(decodeErr(source({ ...valid, ...patch }))).toEqual({ code, message: `dcp.${field} is invalid` });
    }
  });

  it('success returns a normalised copy: arrays cloned, unknown keys dropped, optional keys only when present', () => {
    const consumed = ['b1'];
    const input = { ...valid, consumedBlockRefs: consumed, extra: 1, mode: 'message' };
    delete (input as Record<string, unknown>)['endRef'];
    const meta = decodeOk(source(input));
    expect(Object.keys(meta)).toEqual([
      'v',
      'kind',
      'blockRef',
      'mode',
      'topic',
      'startRef',
      'authorMessageId',
      'compressCallId',
      'consumedBlockRefs',
      'protectedKinds',
    ]);
    expect(meta.consumedBlockRefs).toEqual(['b1']);
    expect(meta.consumedBlockRefs).not.toBe(consumed);
    expect(meta.mode).toBe('message');
    expect(decodeOk(source(encodeDcpMeta(recompressMeta('b1', 'b2', 'b3', [])))).recompressedFrom).toBe('b1');
  });
});

describe('§18 item 54: the decoder is total', () => {
  it('never throws on 200 random garbage inputs and always returns a documented code', () => {
    const codes = new Set([
      'NOT_COMPACT_SOURCE',
      'MISSING_DCP_META',
      'UNSUPPORTED_VERSION',
      'INVALID_KIND',
      'INVALID_BLOCK_REF',
      'INVALID_MODE',
      'INVALID_TOPIC',
      'INVALID_START_REF',
      'INVALID_END_REF',
      'INVALID_AUTHOR',
      'INVALID_CALL',
      'INVALID_CONSUMED',
      'INVALID_PROTECTED',
      'INVALID_RECOMPRESSED',
    ]);
    const garbageDcp = fc.oneof(
      fc.anything({ withNullPrototype: true, withSparseArray: true, withBigInt: true, withBoxedValues: true }),
      fc.record(
        {
          v: fc.oneof(fc.constant(1), fc.anything()),
          kind: fc.oneof(fc.constantFrom('summary', 'expansion'), fc.anything()),
          blockRef: fc.oneof(fc.constantFrom('b1', 'b20', 'b0'), fc.string()),
          mode: fc.oneof(fc.constantFrom('range', 'message'), fc.anything()),
          topic: fc.oneof(fc.string({ maxLength: 210 }), fc.anything()),
          startRef: fc.oneof(fc.string({ maxLength: 40 }), fc.anything()),
          endRef: fc.oneof(fc.string({ maxLength: 3 }), fc.anything()),
          authorMessageId: fc.oneof(fc.string({ maxLength: 3 }), fc.anything()),
          compressCallId: fc.oneof(fc.string({ maxLength: 3 }), fc.anything()),
          consumedBlockRefs: fc.oneof(fc.array(fc.constantFrom('b1', 'b2', 'x')), fc.anything()),
          protectedKinds: fc.oneof(fc.array(fc.string()), fc.anything({ withSparseArray: true })),
          recompressedFrom: fc.oneof(fc.constantFrom('b1', 'b'), fc.anything()),
        },
        { requiredKeys: [] },
      ),
    );
    const garbageSource = fc.oneof(
      fc.anything({ withNullPrototype: true, withSparseArray: true, withBigInt: true }),
      garbageDcp.map((dcp) => ({ kind: 'plugin', plugin: 'compact', dcp })),
    );
    fc.assert(
      fc.property(garbageSource, (input) => {
        const result = decodeDcpMeta(input);
        if (result.ok) {
          expect(result.meta.v).toBe(1);
        } else {
          expect(codes.has(result.code)).toBe(true);
          expect(typeof result.message).toBe('string');
        }
      }),
      { numRuns: 200, seed: 20260828 },
    );
  });
});
