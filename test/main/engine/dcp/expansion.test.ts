// DCP.md §18 items 50–51 and 67: semantic expansion and recompression in control turns, the expansion cap, and the
// command-time pre-checks.
import { describe, expect, it } from 'vitest';
import type { Message } from '../../../../src/protocol/events.js';
import { compressReply, createDcpHarness, expectHealthyLog, messageText, range, texts, turn } from './dcp-harness.js';

const SUMMARY = 'Turns one to three: the user asked about the parser and got three answers.';

/** Three plain turns, then turn 4 compresses [m0001, m0004) into b1. */
async function withBlock(dcp: Record<string, unknown> = {}, contextWindow?: number) {
  const harness = createDcpHarness({
    dcp,
    ...(contextWindow === undefined ? {} : { contextWindow }),
    script: [...texts(3), compressReply([range('m0001', 'm0004', SUMMARY)]), { text: 'ok' }, ...texts(3, 'later')],
  });
  for (const text of ['alpha question', 'beta question', 'gamma question', 'compress now'])
    await turn(harness, `${text} ${'q'.repeat(150)}`);
  expect(harness.index().block('b1')?.membership).toBe('active');
  return harness;
}

function surfaceText(harness: ReturnType<typeof createDcpHarness>): string {
  return harness.session
    .deriveMessages()
    .map((message) => messageText(message as Message))
    .join('\n');
}

describe('§18 item 50: expand and recompress', () => {
  it('expands b1 into b2 in a control turn, then re-compresses b1 into b3', async () => {
    const harness = await withBlock();
    const dispatches = harness.model.dispatchCount;
    expect(await harness.runCommand('/dcp decompress b1 --into-context')).toEqual({
      kind: 'success',
      text: 'b1 will be expanded into quoted context in a control turn.',
    });
    await harness.runUntilIdle();
    expect(harness.model.dispatchCount).toBe(dispatches);
    expect(harness.notifications.map((notification) => notification.text)).toEqual(['DCP: b1 expanded into b2.']);
    const index = harness.index();
    expect(index.block('b1')).toMatchObject({ membership: 'expanded', successor: 'b2' });
    expect(index.block('b2')).toMatchObject({
      membership: 'active',
      meta: {
        kind: 'expansion',
        blockRef: 'b2',
        startRef: 'b1',
        endRef: 'b2',
        consumedBlockRefs: ['b1'],
        authorMessageId: 'dcp-command',
        compressCallId: 'dcp-expansion-b2',
      },
    });
    const visible = surfaceText(harness);
    expect(visible).toContain('[Expanded block b1]\n\n--- leaf ');
    expect(visible).toContain(`alpha question ${'q'.repeat(150)}`);
    const start = harness.session.events.find(
      (event) => event.type === 'compaction/start' && (event.data as { compactionId: string }).compactionId === 'dcp-expand-b1-b2',
    );
    expect(start).toBeDefined();
    const checkpoint = harness.session.events[index.block('b2')!.seq]!;
    const summarySeq = checkpoint.seq - 1;
    expect(checkpoint.sourceEventSeqs).toEqual([index.block('b1')!.seq, summarySeq]);

    expect(await harness.runCommand('/dcp recompress b1')).toEqual({
      kind: 'success',
      text: 'b1 will be re-compressed in a control turn.',
    });
    await harness.runUntilIdle();
    expect(harness.notifications.at(-1)!.text).toBe('DCP: b1 re-compressed into b3.');
    expect(index.block('b3')).toMatchObject({
      membership: 'active',
      meta: { kind: 'summary', recompressedFrom: 'b1', startRef: 'b2', consumedBlockRefs: ['b2'], compressCallId: 'dcp-recompress-b3' },
    });
    expect(index.block('b2')!.membership).toBe('consumed');
    expect(index.block('b1')!.membership).toBe('expanded');
    expect(index.maxBlockNumber).toBe(3);
    const b3Text = messageText(harness.session.events[index.block('b3')!.seq]!.data as Message);
    expect(b3Text.split('[Compressed conversation section]').length - 1).toBe(1);
    expect(b3Text.split('<dcp-message-id>').length - 1).toBe(1);
    expect(b3Text).toContain(SUMMARY);
    expect(b3Text.endsWith('<dcp-message-id>b3</dcp-message-id>')).toBe(true);
    const raw = await harness.runCommand('/dcp show b3 --raw');
    expect(raw.text).toContain('recompressed from: b1');
    expect(raw.text).toContain(`alpha question ${'q'.repeat(150)}`);
    expect(harness.model.dispatchCount).toBe(dispatches);
    expectHealthyLog(harness);
  });
});

describe('§18 item 51: the expansion cap', () => {
  it('an expansion over the cap is refused with the cap text and nothing is written', async () => {
    const harness = await withBlock({ expansion: { maxTokens: 20 } });
    const before = harness.session.events.length;
    const result = await harness.runCommand('/dcp decompress b1 --into-context');
    expect(result.kind).toBe('error');
    expect(result.text).toMatch(/^b1 expansion needs ~\d+ tokens, above the expansion cap of ~20 tokens$/);
    expect(harness.runtime.pendingControls.size).toBe(0);
    // Only the command records were written.
    expect(harness.session.events.slice(before).map((event) => event.type)).toEqual(['command/run', 'command/done']);
  });
});

describe('§18 item 67: pre-checks at command time', () => {
  it('a consumed block is not an active summary; no control is queued', async () => {
    const harness = await withBlock();
    await harness.runCommand('/dcp decompress b1 --into-context');
    await harness.runUntilIdle();
    await harness.runCommand('/dcp recompress b1');
    await harness.runUntilIdle();
    expect(harness.index().block('b2')!.membership).toBe('consumed');
    expect(await harness.runCommand('/dcp decompress b2 --into-context')).toEqual({
      kind: 'error',
      text: 'b2 is not an active summary block',
    });
    expect(await harness.runCommand('/dcp decompress b1 --into-context')).toEqual({
      kind: 'error',
      text: 'b1 is not an active summary block',
    });
    expect(await harness.runCommand('/dcp recompress b3')).toEqual({
      kind: 'error',
      text: 'b3 has no active semantic expansion to recompress',
    });
    expect(harness.runtime.pendingControls.size).toBe(0);
  });
});
