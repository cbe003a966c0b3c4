// DCP.md §18 items 12, 13, 14, 15, 21, 22, 26: the compress happy path through the real loop, the exact
// bracket + cleanup event order, per-range independent commit with status lines, the net-savings failure, the
// index-based cleanup mapping, two calls in one assistant message, and the result texts.
import { describe, expect, it } from 'vitest';
import type { Message, SessionEvent } from '../../../../src/protocol/events.js';
import { decodeDcpMeta } from '../../../../src/protocol/dcp/dcp-meta.js';
import { estimateEvent } from '../../../../src/protocol/token-estimator.js';
import {
  compactionEvents,
  compressReply,
  compressResults,
  createDcpHarness,
  expectHealthyLog,
  loggedMarkers,
  messageText,
  range,
  texts,
  turn,
} from './dcp-harness.js';

const CLARITY =
  'Full summaries are stored in the new checkpoints; any [stored in bN] in the inline tool-call arguments is only the cleanup marker, not the stored summary.';

/** Three plain turns (m0001–m0003), then turn 4 whose model calls `compress` with `content`. */
async function compressInTurn4(content: unknown, dcp: Record<string, unknown> = {}) {
  const harness = createDcpHarness({ dcp, script: [...texts(3), compressReply(content), { text: 'Compressed.' }] });
  for (const text of ['first user text alpha', 'second user text beta', 'third user text gamma'])
    await turn(harness, `${text} ${'x'.repeat(200)}`);
  await turn(harness, 'please compress');
  return harness;
}

function dataOf<T>(event: SessionEvent): T {
  return event.data as T;
}

describe('§18 item 12: happy path [m0001, m0004) in turn 4', () => {
  it('names b1, replaces the three old turns by the summary, cleans the arguments and reloads identically', async () => {
    const harness = await compressInTurn4([range('m0001', 'm0004', 'Turns 1-3: the user asked three questions and got answers.')]);
    const { session } = harness;
    expect(harness.errors).toEqual([]);
    expect(loggedMarkers(session).map((marker) => marker.ref)).toEqual(['m0001', 'm0002', 'm0003', 'm0004', 'm0005']);
    const [result] = compressResults(session);
    expect(result!.isError).toBe(false);
    expect(result!.text).toBe(
      [
        `Compressed 9 message(s) into b1. ${CLARITY}`,
        'Range status:',
        `1. m0001..m0004: committed as b1 (9 message(s), ~${/~(\d+) tokens saved/.exec(result!.text)![1]} tokens saved)`,
      ].join('\n'),
    );
    const visible = session.deriveMessages().map(messageText).join('\n');
    expect(visible).toContain(
      '[Compressed conversation section]\nTurns 1-3: the user asked three questions and got answers.\n\n<dcp-message-id>b1</dcp-message-id>',
    );
    for (const old of ['first user text alpha', 'second user text beta', 'third user text gamma']) expect(visible).not.toContain(old);
    const author = session.events
      .filter((event) => event.type === 'assistant/message')
      .find((event) => typeof event.surfaceOp === 'object')!;
    const call = dataOf<{ message: Message }>(author).message.content.find((block) => block.type === 'tool-call') as { arguments: string };
    expect(call.arguments).toContain('"summary":"[stored in b1]"');
    expect(session.meter.measure().projectedTokens).toBe(session.meter.measure().surfaceTokens);
    expect(harness.index().block('b1')).toMatchObject({
      membership: 'active',
      meta: { blockRef: 'b1', startRef: 'm0001', endRef: 'm0004', topic: 'old work' },
    });
    expectHealthyLog(harness);
  });
});

describe('§18 item 13: exact event order and pricing', () => {
  it('writes start, summary, checkpoint, end, prune, assistant replace, then the loop tool result', async () => {
    const harness = await compressInTurn4([range('m0001', 'm0004')]);
    const { session } = harness;
    const events = session.events;
    const startIndex = events.findIndex((event) => event.type === 'compaction/start');
    const unit = events.slice(startIndex, startIndex + 7);
    expect(unit.map((event) => event.type)).toEqual([
      'compaction/start',
      'compaction/summary',
      'user/message',
      'compaction/end',
      'compaction/prune',
      'assistant/message',
      'tool/result',
    ]);
    const [start, summary, checkpoint, end, prune, cleaned] = unit as [
      SessionEvent,
      SessionEvent,
      SessionEvent,
      SessionEvent,
      SessionEvent,
      SessionEvent,
    ];
    const callId = dataOf<{ callId: string }>(events.find((event) => event.type === 'tool/call')!).callId;
    expect(start.data).toEqual({ compactionId: `dcp-${callId}-0`, turn: 4 });
    const summaryData = dataOf<{
      shadowedRange: { start: number; end: number };
      shadowedSeqs: number[];
      shadowedTokenCount: number;
      provider: string;
      model: string;
      summary: unknown;
    }>(summary);
    expect(Object.keys(summary.data as object)).toEqual([
      'compactionId',
      'summary',
      'shadowedRange',
      'shadowedSeqs',
      'shadowedTokenCount',
      'provider',
      'model',
    ]);
    const seqs = summaryData.shadowedSeqs;
    // The shadowed nodes are the nine surface nodes of turns 1–3, in surface order.
    const markerSeqs = loggedMarkers(session).map((marker) => marker.seq);
    expect(seqs[0]).toBe(markerSeqs[0]);
    expect(seqs).toHaveLength(9);
    expect(summaryData.shadowedRange).toEqual({ start: seqs[0], end: seqs.at(-1) });
    expect(summaryData.shadowedTokenCount).toBe(seqs.reduce((sum, seq) => sum + estimateEvent(events[seq]!), 0));
    expect(summaryData.provider).toBe('scripted');
    expect(summaryData.model).toBe('scripted-1');
    expect(checkpoint.surfaceOp).toEqual({ op: 'replace', start: seqs[0], end: seqs.at(-1) });
    expect(checkpoint.sourceEventSeqs).toEqual([seqs[0], summary.seq, ...seqs.slice(1)]);
    const checkpointMessage = checkpoint.data as Message;
    expect(Object.keys(checkpointMessage.source)).toEqual(['kind', 'plugin', 'compactionId', 'dcp']);
    expect(summaryData.summary).toEqual(checkpointMessage.content);
    const decoded = decodeDcpMeta(checkpointMessage.source);
    expect(decoded.ok).toBe(true);
    expect(Object.keys(checkpointMessage.source['dcp'] as object)).toEqual([
      'v',
      'kind',
      'blockRef',
      'mode',
      'topic',
      'startRef',
      'endRef',
      'authorMessageId',
      'compressCallId',
      'consumedBlockRefs',
      'protectedKinds',
    ]);
    const authorSeq = prune.surfaceOp === undefined ? dataOf<{ shadowedSeqs: number[] }>(prune).shadowedSeqs[0]! : -1;
    const author = events[authorSeq]!;
    expect(checkpointMessage.source['dcp']).toEqual({
      v: 1,
      kind: 'summary',
      blockRef: 'b1',
      mode: 'range',
      topic: 'old work',
      startRef: 'm0001',
      endRef: 'm0004',
      authorMessageId: dataOf<{ message: Message }>(author).message.id,
      compressCallId: callId,
      consumedBlockRefs: [],
      protectedKinds: [],
    });
    expect(end.data).toEqual({ compactionId: `dcp-${callId}-0`, turn: 4 });
    expect(prune.data).toEqual({
      shadowedRange: { start: authorSeq, end: authorSeq },
      shadowedSeqs: [authorSeq],
      shadowedTokenCount: estimateEvent(author),
    });
    expect(cleaned.surfaceOp).toEqual({ op: 'replace', start: authorSeq, end: authorSeq });
    expect(cleaned.sourceEventSeqs).toEqual([authorSeq]);
    const { message: cleanedMessage, ...cleanedRest } = dataOf<{ message: Message }>(cleaned);
    const { message: originalMessage, usage: originalUsage, ...originalRest } = dataOf<{ message: Message; usage?: unknown }>(author);
    // Every field of the author is copied but `usage` (DCP.md §7.12 rule 5; dsh-dcp writes {turn, step, message}).
    expect(originalUsage).toBeDefined();
    expect(cleanedRest).toEqual(originalRest);
    expect(Object.keys(cleaned.data as object)).toEqual(Object.keys(author.data as object).filter((key) => key !== 'usage'));
    expect(cleanedMessage.id).toBe(originalMessage.id);
    expect(harness.index().invalidations.list()).toEqual([
      { firstSeq: checkpoint.seq, position: 0, surfaceLengthBefore: expect.any(Number) as number, cause: 'dcp' },
    ]);
    expectHealthyLog(harness);
  });
});

describe('§18 item 14: independent per-range commit', () => {
  it('commits adjacent ranges [m0001,m0002) + [m0002,m0004) as b1 and b2', async () => {
    const harness = await compressInTurn4([
      range('m0001', 'm0002', 'Turn one summary.'),
      range('m0002', 'm0004', 'Turns two and three summary.'),
    ]);
    const [result] = compressResults(harness.session);
    expect(result!.isError).toBe(false);
    expect(result!.text.split('\n')[0]).toBe(`Compressed 9 message(s) into b1, b2. ${CLARITY}`);
    expect(result!.text).toMatch(
      /\n1\. m0001\.\.m0002: committed as b1 \(3 message\(s\), ~\d+ tokens saved\)\n2\. m0002\.\.m0004: committed as b2 \(6 message\(s\), ~\d+ tokens saved\)$/,
    );
    expect(
      harness
        .index()
        .blocks()
        .map((block) => [block.ref, block.membership]),
    ).toEqual([
      ['b1', 'active'],
      ['b2', 'active'],
    ]);
    expectHealthyLog(harness);
  });

  it('commits the first of overlapping ranges and fails the second with "overlaps"', async () => {
    const harness = await compressInTurn4([range('m0001', 'm0003', 'First two turns.'), range('m0002', 'm0004', 'Turns two and three.')]);
    const [result] = compressResults(harness.session);
    expect(result!.isError).toBe(false);
    expect(result!.text.split('\n').slice(2)).toEqual([
      expect.stringMatching(/^1\. m0001\.\.m0003: committed as b1 \(6 message\(s\), ~\d+ tokens saved\)$/) as string,
      '2. m0002..m0004: failed: ranges must be in surface order and non-overlapping: m0001..m0003 overlaps m0002..m0004',
    ]);
    expectHealthyLog(harness);
  });

  it('fails the later entry of a reversed pair with "comes before" and commits the earlier one', async () => {
    const harness = await compressInTurn4([range('m0002', 'm0004', 'Turns two and three.'), range('m0001', 'm0002', 'Turn one.')]);
    const [result] = compressResults(harness.session);
    expect(result!.text.split('\n').slice(2)).toEqual([
      expect.stringMatching(/^1\. m0002\.\.m0004: committed as b1 /) as string,
      '2. m0001..m0002: failed: ranges must be in surface order and non-overlapping: m0001..m0002 comes before m0002..m0004',
    ]);
    expectHealthyLog(harness);
  });
});

describe('§18 item 15: net savings', () => {
  it('fails with a text naming minNetSavingsTokens, as an error result, with no DCP event written', async () => {
    const harness = await compressInTurn4([range('m0001', 'm0004')], { compress: { minNetSavingsTokens: 100000 } });
    const [result] = compressResults(harness.session);
    expect(result!.isError).toBe(true);
    expect(result!.text).toMatch(
      /^Error: No range was compressed\.\nRange status:\n1\. m0001\.\.m0004: failed: range m0001\.\.m0004 saves ~\d+ tokens, below minNetSavingsTokens=100000$/,
    );
    expect(compactionEvents(harness.session)).toEqual([]);
    expect(harness.session.events.filter((event) => typeof event.surfaceOp === 'object')).toEqual([]);
    expectHealthyLog(harness);
  });
});

describe('§18 item 21: cleanup mapping by input index', () => {
  it('keeps the failed entry 0 summary and stores entry 1 as [stored in b1]; the appendix follows the summary', async () => {
    const harness = await compressInTurn4([range('m0009', 'm0010', 'Nothing real.'), range('m0001', 'm0004', 'Real summary.')]);
    const [result] = compressResults(harness.session);
    expect(result!.text.split('\n').slice(2)).toEqual([
      expect.stringMatching(
        /^1\. m0009\.\.m0010: failed: startRef m0009 is not an active boundary \(unknown ref\); nearest valid cuts: /,
      ) as string,
      expect.stringMatching(/^2\. m0001\.\.m0004: committed as b1 /) as string,
    ]);
    const cleaned = harness.session.events.filter((event) => event.type === 'assistant/message' && typeof event.surfaceOp === 'object');
    const args = JSON.parse(
      (dataOf<{ message: Message }>(cleaned[0]!).message.content.find((block) => block.type === 'tool-call') as { arguments: string })
        .arguments,
    ) as { content: Array<{ summary: string }> };
    expect(args.content.map((entry) => entry.summary)).toEqual(['Nothing real.', '[stored in b1]']);
    expectHealthyLog(harness);
  });
});

describe('§18 item 22: two compress calls in one assistant message', () => {
  it('commits both blocks and cleans both argument entries; the second cleanup replaces the first copy', async () => {
    const reply = {
      toolCalls: [
        { name: 'compress', args: { topic: 'one', content: [range('m0001', 'm0002', 'Turn one.')] } },
        { name: 'compress', args: { topic: 'two', content: [range('m0002', 'm0003', 'Turn two.')] } },
      ],
    };
    const harness = createDcpHarness({ script: [...texts(3), reply, { text: 'ok' }] });
    for (let index = 1; index <= 3; index++) await turn(harness, `turn ${index} ${'y'.repeat(300)}`);
    await turn(harness, 'compress twice');
    const { session } = harness;
    expect(compressResults(session).map((result) => result.isError)).toEqual([false, false]);
    expect(
      harness
        .index()
        .blocks()
        .map((block) => [block.ref, block.membership]),
    ).toEqual([
      ['b1', 'active'],
      ['b2', 'active'],
    ]);
    const copies = session.events.filter((event) => event.type === 'assistant/message' && typeof event.surfaceOp === 'object');
    expect(copies).toHaveLength(2);
    const original = session.events.find((event) => event.type === 'assistant/message' && (event.data as { turn: number }).turn === 4)!;
    expect(copies[0]!.surfaceOp).toEqual({ op: 'replace', start: original.seq, end: original.seq });
    expect(copies[1]!.surfaceOp).toEqual({ op: 'replace', start: copies[0]!.seq, end: copies[0]!.seq });
    const finalCalls = dataOf<{ message: Message }>(copies[1]!).message.content.filter((block) => block.type === 'tool-call') as Array<{
      arguments: string;
    }>;
    expect(finalCalls.map((call) => (JSON.parse(call.arguments) as { content: Array<{ summary: string }> }).content[0]!.summary)).toEqual([
      '[stored in b1]',
      '[stored in b2]',
    ]);
    expectHealthyLog(harness);
  });
});
