// HOST.md §3.6 shadow-price claim rule (§13 item 5) and its effect on the meter's projection (§4.2).
import type { CompactionSummaryData } from '../../../../src/protocol/event-map.js';
import { describe, expect, it } from 'vitest';
import type { Session } from '../../../../src/main/stand-in/host/session.js';
import { checkpointData, expectThrow, newSession, toolCallBlock, toolResultData, assistantData, userData } from './host-builders.js';

// Token figures below come from HOST.md §4.1: a user message with one 3-character text block costs
// 4 + (⌈3/4⌉ + 4) = 9; with a 7-character block ('summary') 4 + (2 + 4) = 10.
const THREE_CHAR_MESSAGE = 9;
const SUMMARY_MESSAGE = 10;

/** Appends 21 user messages `m00`..`m20` at seqs 0..20. */
function twentyOneMessages(): Session {
  const session = newSession();
  for (let index = 0; index <= 20; index++)
    session.append('user/message', userData(`m${String(index).padStart(2, '0')}`), { surfaceOp: 'append' });
  return session;
}

/** `compaction/summary` data over seqs `start..end` (consecutive) with `tokens`. */
function summaryData(compactionId: string, start: number, end: number, tokens: number): CompactionSummaryData {
  const seqs = Array.from({ length: end - start + 1 }, (_, index) => start + index);
  return {
    compactionId,
    summary: [{ type: 'text', text: 'summary' }],
    shadowedRange: { start, end },
    shadowedSeqs: seqs,
    shadowedTokenCount: tokens,
    provider: 'p',
    model: 'm',
  };
}

/** The checkpoint replace of `start..end` (consecutive seqs, provenance listing all). */
function replaceWithCheckpoint(session: Session, compactionId: string, start: number, end: number): void {
  const seqs = Array.from({ length: end - start + 1 }, (_, index) => start + index);
  session.append('user/message', checkpointData('summary', `cp-${session.events.length}`, compactionId), {
    surfaceOp: { op: 'replace', start, end },
    sourceEventSeqs: seqs,
  });
}

describe('§13 item 5', () => {
  it('a summary over {1,20} followed by a replace {1,18} throws HOST_SHADOW_PRICE and changes nothing', () => {
    const session = twentyOneMessages();
    session.append('compaction/start', { compactionId: 'c', turn: null });
    session.append('compaction/summary', summaryData('c', 1, 20, 20 * THREE_CHAR_MESSAGE));
    const before = { length: session.events.length, measure: session.meter.measure(), surface: session.surface.length };
    expectThrow(() => replaceWithCheckpoint(session, 'c', 1, 18), {
      message: 'shadow price claim 1..20 does not match replace 1..18',
      code: 'HOST_SHADOW_PRICE',
      name: 'SessionAppendError',
    });
    expect(session.events).toHaveLength(before.length);
    expect(session.surface.length).toBe(before.surface);
    expect(session.meter.measure()).toEqual(before.measure);
  });

  it('with the exact range and exact tokens, projectedTokens === surfaceTokens', () => {
    const session = twentyOneMessages();
    expect(session.meter.measure().surfaceTokens).toBe(21 * THREE_CHAR_MESSAGE);
    session.append('compaction/start', { compactionId: 'c', turn: null });
    session.append('compaction/summary', summaryData('c', 1, 20, 20 * THREE_CHAR_MESSAGE));
    replaceWithCheckpoint(session, 'c', 1, 20);
    session.append('compaction/end', { compactionId: 'c', turn: null });
    const measure = session.meter.measure();
    expect(measure.surfaceTokens).toBe(THREE_CHAR_MESSAGE + SUMMARY_MESSAGE);
    expect(measure.projectedTokens).toBe(THREE_CHAR_MESSAGE + SUMMARY_MESSAGE);
  });
});

describe('claim consumption', () => {
  it('a claim priced with a different token count moves the projection by estimate(new) − tokens', () => {
    const session = twentyOneMessages();
    session.append('compaction/start', { compactionId: 'c', turn: null });
    session.append('compaction/summary', summaryData('c', 1, 20, 150));
    replaceWithCheckpoint(session, 'c', 1, 20);
    const measure = session.meter.measure();
    expect(measure.surfaceTokens).toBe(19);
    expect(measure.projectedTokens).toBe(21 * THREE_CHAR_MESSAGE - 150 + SUMMARY_MESSAGE);
  });

  it('any other next event drops the claim: compaction/end {error} right after a summary is legal', () => {
    const session = twentyOneMessages();
    session.append('compaction/start', { compactionId: 'c', turn: null });
    session.append('compaction/summary', summaryData('c', 1, 20, 180));
    session.append('compaction/end', { compactionId: 'c', turn: null, error: { message: 'gave up' } });
    // No claim is armed any more, so an unrelated replace of another range is legal and unpriced.
    session.append('user/message', userData('x'), { surfaceOp: { op: 'replace', start: 1, end: 2 }, sourceEventSeqs: [1, 2] });
    const measure = session.meter.measure();
    // The one-character replacement costs 4 + (⌈1/4⌉ + 4) = 9.
    expect(measure.surfaceTokens).toBe(21 * THREE_CHAR_MESSAGE - 2 * THREE_CHAR_MESSAGE + 9);
    expect(measure.projectedTokens).toBe(21 * THREE_CHAR_MESSAGE);
  });

  it('a log-only event between the summary and the replace drops the claim; the replace is then unpriced (delta 0, drift)', () => {
    const session = twentyOneMessages();
    session.append('compaction/start', { compactionId: 'c', turn: null });
    session.append('compaction/summary', summaryData('c', 1, 20, 180));
    session.append('session/title', { title: 't', messageSeqs: [], source: { kind: 'user' } });
    replaceWithCheckpoint(session, 'c', 1, 18);
    const measure = session.meter.measure();
    expect(measure.projectedTokens).toBe(21 * THREE_CHAR_MESSAGE);
    expect(measure.surfaceTokens).toBe(21 * THREE_CHAR_MESSAGE - 18 * THREE_CHAR_MESSAGE + SUMMARY_MESSAGE);
  });

  it('an append right after a claim consumes it without error', () => {
    const session = twentyOneMessages();
    session.append('compaction/prune', { shadowedRange: { start: 3, end: 3 }, shadowedSeqs: [3], shadowedTokenCount: 9 });
    session.append('user/message', userData('new'), { surfaceOp: 'append' });
    session.append('user/message', userData('abc'), { surfaceOp: { op: 'replace', start: 4, end: 4 }, sourceEventSeqs: [4] });
    expect(session.meter.measure().projectedTokens).toBe(22 * THREE_CHAR_MESSAGE);
  });

  it('a prune claims the next replace: a mismatched tool/result replace throws, the matching one is priced', () => {
    const session = newSession();
    session.append('turn/start', { turn: 1 });
    session.append('step/start', { turn: 1, step: 1 });
    session.append('assistant/message', assistantData(1, 1, [toolCallBlock('c1'), toolCallBlock('c2')]), { surfaceOp: 'append' });
    const first = session.append('tool/result', toolResultData(1, 1, 'c1', 'long output text'), { surfaceOp: 'append' }).seq;
    const second = session.append('tool/result', toolResultData(1, 1, 'c2', 'more output'), { surfaceOp: 'append' }).seq;
    session.append('step/end', { turn: 1, step: 1 });
    // tool/result with inner text 'long output text' (16 chars): 4 + (4 + (4 + 4)) = 16.
    expect(session.meter.estimateOf(first)).toBe(16);
    session.append('compaction/prune', { shadowedRange: { start: first, end: first }, shadowedSeqs: [first], shadowedTokenCount: 16 });
    const pruned = toolResultData(1, 1, 'c2', '[pruned]');
    expectThrow(
      () => session.append('tool/result', pruned, { surfaceOp: { op: 'replace', start: second, end: second }, sourceEventSeqs: [second] }),
      {
        message: `shadow price claim ${first}..${first} does not match replace ${second}..${second}`,
        code: 'HOST_SHADOW_PRICE',
      },
    );
    const before = session.meter.measure();
    session.append('tool/result', toolResultData(1, 1, 'c1', '[pruned]'), {
      surfaceOp: { op: 'replace', start: first, end: first },
      sourceEventSeqs: [first],
    });
    // '[pruned]' is 8 chars: 4 + (4 + (2 + 4)) = 14.
    const after = session.meter.measure();
    expect(after.surfaceTokens - before.surfaceTokens).toBe(14 - 16);
    expect(after.projectedTokens - before.projectedTokens).toBe(14 - 16);
    expect(after.projectedTokens).toBe(after.surfaceTokens);
  });
});
