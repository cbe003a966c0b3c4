/**
 * Test support: one session written with DCP active (compress, dedup and purge strategies, expansion and
 * recompression control turns, a sweep, a manual switch, a native bracket), shared by the interop and crash-point
 * tests.
 */
import { expect } from 'vitest';
import type { Session } from '../../../../src/main/stand-in/host/session.js';
import type { DcpHarness } from './dcp-harness.js';
import { bracketWithSource, compressReply, createDcpHarness, range, readTool, texts, turn } from './dcp-harness.js';

/** The summary of b1. */
export const SUMMARY = 'Turns one to three: the user read a.txt twice and asked about the parser.';

/**
 * A DCP-active session: reads of a.txt in turns 1 and 2 (dedup), a failing fetch (purge), compress b1 in turn 4,
 * an expansion and a recompression of b1, a sweep, manual on, a native bracket over the newest content, a last turn.
 */
export async function dcpActiveSession(): Promise<DcpHarness> {
  const fetchTool = {
    name: 'fetch',
    description: 'Fetch.',
    parameters: { type: 'object' },
    execute: () => {
      throw new Error(`fetch failed ${'e'.repeat(40)}`);
    },
  };
  const harness = createDcpHarness({
    dcp: { strategies: { purgeErrors: { enabled: true, turns: 1 } } },
    tools: [readTool, fetchTool],
    script: [
      { toolCalls: [{ name: 'read', args: { path: 'a.txt' } }] },
      { text: `read one ${'d '.repeat(40)}` },
      { toolCalls: [{ name: 'read', args: { path: 'a.txt' } }] },
      { text: `read two ${'d '.repeat(40)}` },
      { text: `Let me fetch. ${'narrative '.repeat(30)}`, toolCalls: [{ name: 'fetch', args: { url: 'u' } }] },
      { text: 'fetch failed' },
      compressReply([range('m0001', 'm0003', SUMMARY)]),
      { text: 'compressed' },
      ...texts(3, 'later'),
    ],
  });
  for (const text of ['read a', 'read a again', 'fetch u', 'compress now']) await turn(harness, `${text} ${'q'.repeat(150)}`);
  expect(harness.index().block('b1')?.membership).toBe('active');
  for (const command of ['/dcp decompress b1 --into-context', '/dcp recompress b1', '/dcp sweep', '/dcp manual on']) {
    expect((await harness.runCommand(command)).kind).toBe('success');
    await harness.runUntilIdle();
  }
  await turn(harness, 'after the controls');
  const surface = harness.session.surface.slice(0, harness.session.surface.length);
  bracketWithSource(
    harness.session,
    'native-1',
    surface.at(-2)!,
    surface.at(-1)!,
    { kind: 'plugin', plugin: 'compact', compactionId: 'native-1' },
    'native summary',
  );
  await turn(harness, 'after native');
  return harness;
}

/** Appends a failed native compaction attempt over the newest node: start, summary, an `end` with an error, no checkpoint. */
export function appendFailedNativeAttempt(session: Session): void {
  const surfaceSeq = session.surface.at(session.surface.length - 1)!;
  session.append('compaction/start', { compactionId: 'native-failed', turn: null });
  session.append('compaction/summary', {
    compactionId: 'native-failed',
    summary: [{ type: 'text', text: 'never applied' }],
    shadowedRange: { start: surfaceSeq, end: surfaceSeq },
    shadowedSeqs: [surfaceSeq],
    shadowedTokenCount: session.meter.estimateOf(surfaceSeq)!,
    provider: 'p',
    model: 'm',
  });
  session.append('compaction/end', { compactionId: 'native-failed', turn: null, error: { message: 'provider failed' } });
}
