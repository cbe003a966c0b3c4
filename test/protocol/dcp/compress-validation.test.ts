import { describe, expect, it } from 'vitest';
import {
  MANUAL_GATE_ERROR,
  NO_AGENT_SESSION_ERROR,
  RUN_CODE_SUB_CALL_ERROR,
  manualGateOpen,
  validateCompressArguments,
} from '../../../src/protocol/dcp/compress-call-errors.js';
import { entryLabel, validateEntryFields } from '../../../src/protocol/dcp/entry-fields.js';
import { summaryRuleErrors } from '../../../src/protocol/dcp/summary-rules.js';
import { surfaceOrderError } from '../../../src/protocol/dcp/range-order.js';
import {
  CURRENT_CALL_ERROR,
  commitError,
  endRefError,
  hardProtectedError,
  latestAllowedEndRefSuffix,
  nearestCutsSuffix,
  netSavingsError,
  pairingEndError,
  pairingStartError,
  resolveFailureText,
  retentionError,
  reversedRangeError,
  startRefError,
  unreadableMetadataError,
} from '../../../src/protocol/dcp/range-errors.js';
import { nearestValidCuts } from '../../../src/protocol/dcp/nearest-cuts.js';

const entry = (summary: unknown = 'Refactored the parser; tests pass.', startRef: unknown = 'm0001', endRef: unknown = 'm0003') => ({
  startRef,
  endRef,
  summary,
});

describe('§18 item 19: whole-call schema texts (§7.4)', () => {
  it('context errors have the exact texts', () => {
    expect(RUN_CODE_SUB_CALL_ERROR).toBe(
      'compress cannot be executed from a run_code sub-call; use native tool presentation or /dcp compress',
    );
    expect(NO_AGENT_SESSION_ERROR).toBe('compress requires an agent session');
    expect(MANUAL_GATE_ERROR).toBe('manual mode is on: compress runs only in a turn started by /dcp compress');
  });

  it('non-object arguments', () => {
    for (const args of [null, 'x', [], 3])
      expect(validateCompressArguments(args, 3)).toEqual({ ok: false, message: 'compress arguments must be an object' });
  });

  it('empty topic (after trimming) and a 201-char topic', () => {
    expect(validateCompressArguments({ topic: '   ', content: [entry()] }, 3)).toEqual({
      ok: false,
      message: 'topic must be a non-empty string',
    });
    expect(validateCompressArguments({ content: [entry()] }, 3)).toEqual({ ok: false, message: 'topic must be a non-empty string' });
    expect(validateCompressArguments({ topic: 'x'.repeat(201), content: [entry()] }, 3)).toEqual({
      ok: false,
      message: 'topic must be at most 200 characters',
    });
    expect(validateCompressArguments({ topic: ` ${'x'.repeat(200)} `, content: [entry()] }, 3).ok).toBe(true);
  });

  it('empty content, and 4 entries with a maximum of 3', () => {
    expect(validateCompressArguments({ topic: 't', content: [] }, 3)).toEqual({ ok: false, message: 'content must be a non-empty array' });
    expect(validateCompressArguments({ topic: 't', content: 'x' }, 3)).toEqual({ ok: false, message: 'content must be a non-empty array' });
    expect(validateCompressArguments({ topic: 't', content: [entry(), entry(), entry(), entry()] }, 3)).toEqual({
      ok: false,
      message: 'content accepts at most 3 range(s)',
    });
  });

  it('several whole-call messages are joined by \\n, in check order', () => {
    expect(validateCompressArguments({ topic: '', content: [1, 2, 3, 4] }, 3)).toEqual({
      ok: false,
      message: 'topic must be a non-empty string\ncontent accepts at most 3 range(s)',
    });
    expect(validateCompressArguments({ topic: 'x'.repeat(201) }, 3)).toEqual({
      ok: false,
      message: 'topic must be at most 200 characters\ncontent must be a non-empty array',
    });
  });

  it('valid arguments give the trimmed topic and the raw entries', () => {
    const content = [entry(), 'not an object'];
    expect(validateCompressArguments({ topic: '  Parser work ', content }, 3)).toEqual({
      ok: true,
      args: { topic: 'Parser work', content },
    });
  });

  it('manual gate (§7.14)', () => {
    expect(manualGateOpen(false, undefined, 4)).toBe(true);
    expect(manualGateOpen(true, undefined, 4)).toBe(false);
    expect(manualGateOpen(true, 3, 4)).toBe(false);
    expect(manualGateOpen(true, 4, 4)).toBe(true);
  });
});

describe('§18 item 19: per-entry texts (§7.5 E1–E7)', () => {
  it('non-object entry', () => {
    expect(validateEntryFields('x', 0)).toEqual({ ok: false, message: 'content[0] must be an object' });
    expect(validateEntryFields([], 2)).toEqual({ ok: false, message: 'content[2] must be an object' });
  });

  it('empty startRef / endRef', () => {
    expect(validateEntryFields(entry(undefined, ''), 1)).toEqual({
      ok: false,
      message: 'content[1].startRef must be a non-empty string (<= 32 chars)',
    });
    expect(validateEntryFields(entry(undefined, 'm0001', '  '), 1)).toEqual({
      ok: false,
      message: 'content[1].endRef must be a non-empty string (<= 32 chars)',
    });
    expect(validateEntryFields(entry(undefined, 'm'.repeat(33)), 0).ok).toBe(false);
  });

  it('empty summary and an 8001-char summary', () => {
    expect(validateEntryFields(entry(''), 0)).toEqual({ ok: false, message: 'content[0].summary must be a non-empty string' });
    expect(validateEntryFields(entry('   '), 0)).toEqual({ ok: false, message: 'content[0].summary must be a non-empty string' });
    expect(validateEntryFields(entry(42), 0)).toEqual({ ok: false, message: 'content[0].summary must be a non-empty string' });
    expect(validateEntryFields(entry('x'.repeat(8001)), 0)).toEqual({
      ok: false,
      message: 'content[0].summary must be at most 8000 characters',
    });
    expect(validateEntryFields(entry('x'.repeat(8000)), 0).ok).toBe(true);
  });

  it('all messages of the group are joined by "; "', () => {
    expect(validateEntryFields({ startRef: 1, endRef: '', summary: '' }, 3)).toEqual({
      ok: false,
      message:
        'content[3].startRef must be a non-empty string (<= 32 chars); content[3].endRef must be a non-empty string (<= 32 chars); content[3].summary must be a non-empty string',
    });
  });

  it('valid fields: refs trimmed, summary as given', () => {
    expect(validateEntryFields(entry(' Summary. ', ' m0001 ', 'b2'), 0)).toEqual({
      ok: true,
      fields: { startRef: 'm0001', endRef: 'b2', summary: ' Summary. ' },
    });
  });

  it('labels use the refs as given, ? for non-strings', () => {
    expect(entryLabel(entry(undefined, 'm0001', 'm0004'))).toBe('m0001..m0004');
    expect(entryLabel({ startRef: 5 })).toBe('?..?');
    expect(entryLabel('x')).toBe('?..?');
  });
});

describe('§18 item 20: summary rules (text part)', () => {
  it('"[b3] foo" fails E5', () => {
    expect(summaryRuleErrors('[b3] foo', 0)).toEqual([
      'content[0].summary must not start with a block ref such as [b1]; write the summary as plain prose',
    ]);
    expect(summaryRuleErrors('  [b12]foo', 1)).toEqual([
      'content[1].summary must not start with a block ref such as [b1]; write the summary as plain prose',
    ]);
    expect(summaryRuleErrors('see [b3] for details', 0)).toEqual([]);
  });

  it('"[stored in b1]" and "see [stored in b2]" fail E6', () => {
    const e6 = 'content[0].summary must contain the actual technical content, not a [stored in bN] placeholder';
    expect(summaryRuleErrors('[stored in b1]', 0)).toEqual([e6]);
    expect(summaryRuleErrors('see [stored in b2]', 0)).toEqual([e6]);
  });

  it('a summary containing <dcp-message-id> (or a prior delimiter, any case) fails E7', () => {
    const e7 = 'content[0].summary must not contain <dcp-message-id> or <dcp-prior> tags';
    expect(summaryRuleErrors('text <dcp-message-id>b1</dcp-message-id>', 0)).toEqual([e7]);
    expect(summaryRuleErrors('text </DCP-PRIOR>', 0)).toEqual([e7]);
    expect(summaryRuleErrors('text <Dcp-Prior ref="b1">', 0)).toEqual([e7]);
    expect(summaryRuleErrors('text dcp-prior without a bracket', 0)).toEqual([]);
  });
});

describe('E8: surface order and overlap', () => {
  const range = (label: string, startPos: number, endPos: number) => ({ label, startPos, endPos });

  it('touching ranges are allowed; overlapping ones name the earlier entry first; reversed ones "come before"', () => {
    expect(surfaceOrderError(range('m0002..m0004', 2, 4), [range('m0001..m0002', 0, 2)])).toBeUndefined();
    expect(surfaceOrderError(range('m0002..m0004', 1, 4), [range('m0001..m0003', 0, 2)])).toBe(
      'ranges must be in surface order and non-overlapping: m0001..m0003 overlaps m0002..m0004',
    );
    expect(surfaceOrderError(range('m0001..m0002', 0, 1), [range('m0003..m0004', 3, 4)])).toBe(
      'ranges must be in surface order and non-overlapping: m0001..m0002 comes before m0003..m0004',
    );
    expect(surfaceOrderError(range('m0001..m0002', 0, 2), [range('m0002..m0004', 2, 4)])).toBe(
      'ranges must be in surface order and non-overlapping: m0001..m0002 comes before m0002..m0004',
    );
  });
});

describe('§5.2–§5.4 and E9–E15 texts', () => {
  it('resolve failures', () => {
    expect(resolveFailureText({ why: 'not-a-boundary-ref' })).toBe('not a boundary ref');
    expect(resolveFailureText({ why: 'unknown-ref' })).toBe('unknown ref');
    expect(resolveFailureText({ why: 'inside-block', blockRef: 'b2' })).toBe('inside b2; use b2');
    expect(resolveFailureText({ why: 'shadowed-by-compaction' })).toBe('shadowed by compaction');
    expect(resolveFailureText({ why: 'consumed', successor: 'b3' })).toBe('consumed by b3');
    expect(resolveFailureText({ why: 'expanded', successor: 'b4' })).toBe('expanded into b4');
    expect(resolveFailureText({ why: 'absorbed-native' })).toBe('absorbed by native compaction');
  });

  it('range texts with hint suffixes', () => {
    expect(startRefError('m9999', 'unknown ref') + nearestCutsSuffix(['m0001', 'b1'])).toBe(
      'startRef m9999 is not an active boundary (unknown ref); nearest valid cuts: m0001, b1',
    );
    expect(endRefError('m0002', 'shadowed by compaction') + nearestCutsSuffix([])).toBe(
      'endRef m0002 is not an active boundary (shadowed by compaction); no valid cuts nearby',
    );
    expect(reversedRangeError('m0004', 'm0001')).toBe('startRef m0004 must appear before endRef m0001');
    expect(pairingStartError('m0002')).toBe('range start m0002 cuts an open tool call/result pair');
    expect(pairingEndError('m0003')).toBe('range end m0003 cuts an open tool call/result pair');
    expect(retentionError('m0001..m0009', 2) + latestAllowedEndRefSuffix('m0005')).toBe(
      'range m0001..m0009 enters the last 2 turn(s); choose older content; latest allowed endRef: m0005',
    );
    expect(latestAllowedEndRefSuffix(undefined)).toBe('; no older boundary is available');
    expect(CURRENT_CALL_ERROR).toBe('range includes the current compress call; choose an earlier endRef');
    expect(hardProtectedError('m0001..m0003')).toBe('range m0001..m0003 contains a hard-protected instruction/snapshot node');
    expect(unreadableMetadataError('m0001..m0003', 'UNSUPPORTED_VERSION')).toBe(
      'range m0001..m0003 contains a checkpoint with unreadable DCP metadata (UNSUPPORTED_VERSION); it is protected',
    );
    expect(netSavingsError('m0001..m0002', 12, 256)).toBe('range m0001..m0002 saves ~12 tokens, below minNetSavingsTokens=256');
    expect(commitError('m0001..m0002', 'disk full')).toBe('range m0001..m0002 could not be committed: disk full');
  });

  it('nearest valid cuts: up to hintCount each side, in surface order, at most 512 positions away', () => {
    const cuts = new Map([
      [1, 'm0001'],
      [3, 'm0002'],
      [5, 'b1'],
      [6, 'm0004'],
      [9, 'm0005'],
    ]);
    const at = (position: number) => cuts.get(position);
    expect(nearestValidCuts(5, 10, 2, at)).toEqual(['m0001', 'm0002', 'b1', 'm0004']);
    expect(nearestValidCuts(10, 10, 3, at)).toEqual(['b1', 'm0004', 'm0005']);
    expect(nearestValidCuts(5, 10, 0, at)).toEqual([]);
    const visited: number[] = [];
    nearestValidCuts(1000, 5000, 3, (position) => {
      visited.push(position);
      return undefined;
    });
    expect(Math.min(...visited)).toBe(488);
    expect(Math.max(...visited)).toBe(1511);
    expect(visited.length).toBe(1024);
  });
});
