// DCP.md §18 items 57–59 via `/dcp stats` (the §15.1 ledger recomputed from the log, the §15.2 session block) and
// the domain block of a harness with no storage (§15.3).
import { describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../../../src/protocol/events.js';
import { computeLedger } from './ledger-oracle.js';
import { bracketWithSource, compressReply, createDcpHarness, loggedMarkers, range, texts, turn } from './dcp-harness.js';

function line(text: string, label: string): string {
  return text.split('\n').find((candidate) => candidate.startsWith(label)) ?? '';
}

describe('§18 items 57–59: /dcp stats', () => {
  it('counts the DCP bracket, the cleanup and the markers, never the native bracket, and the equation holds', async () => {
    const harness = createDcpHarness({
      script: [
        ...texts(3),
        compressReply([range('m0002', 'm0004', 'Turns two and three: two questions answered about the parser.')]),
        { text: 'ok' },
        { text: 'after' },
      ],
    });
    for (let index = 1; index <= 4; index++) await turn(harness, `turn ${index} ${'s'.repeat(300)}`);
    const { session } = harness;
    const surfaceBeforeNative = session.meter.measure().surfaceTokens;
    const nativeSeq = bracketWithSource(
      session,
      'native-1',
      session.surface.at(0)!,
      session.surface.at(1)!,
      { kind: 'plugin', plugin: 'compact', compactionId: 'native-1' },
      'native summary',
    );
    await turn(harness, 'after');
    const index = harness.index();
    const ledger = computeLedger(index, session);
    const events = session.events;
    const summary = events.find(
      (event) => event.type === 'compaction/summary' && (event.data as { compactionId: string }).compactionId.startsWith('dcp-'),
    )!;
    const checkpointSeq = index.block('b1')!.seq;
    expect(ledger.blockCount).toBe(1);
    expect(ledger.shadowedTokens).toBe((summary.data as { shadowedTokenCount: number }).shadowedTokenCount);
    expect(ledger.checkpointTokens).toBe(session.meter.estimateOf(checkpointSeq));
    const cleanup = events.find(
      (event): event is SessionEvent => event.type === 'assistant/message' && typeof event.surfaceOp === 'object',
    )!;
    const cleanupSaving = session.meter.estimateOf(cleanup.sourceEventSeqs![0]!)! - session.meter.estimateOf(cleanup.seq)!;
    expect(ledger.cleanupTokens).toBe(cleanupSaving);
    expect(cleanupSaving).toBeGreaterThan(0);
    expect(ledger.inlineCleanups).toBe(1);
    const markerTokens = loggedMarkers(session).reduce((sum, marker) => sum + session.meter.estimateOf(marker.seq)!, 0);
    expect(ledger.markerTokens).toBe(markerTokens);
    expect(ledger.markerTokens).toBeGreaterThan(0);
    expect(nativeSeq).toBeGreaterThan(checkpointSeq);

    const stats = await harness.runCommand('/dcp stats');
    expect(stats.kind).toBe('success');
    expect(stats.text.startsWith('DCP statistics (heuristic token estimates):\nblocks (hist/act): 1/1\n')).toBe(true);
    expect(line(stats.text, 'shadowed tokens:')).toBe(`shadowed tokens: ~${ledger.shadowedTokens}`);
    expect(line(stats.text, 'inline cleanups:')).toBe('inline cleanups: 1');
    const reduction =
      ledger.shadowedTokens +
      ledger.pruneTokens -
      ledger.checkpointTokens +
      ledger.cleanupTokens +
      ledger.expansionTokens -
      ledger.markerTokens;
    expect(line(stats.text, 'history reduction:')).toBe(`history reduction: ~${reduction}${reduction < 0 ? ' (overhead)' : ''}`);
    expect(line(stats.text, 'prefix invalidations:')).toBe('prefix invalidations: 2 (dcp 1, native 1, mixed 0)');
    // §14 rule 1: a window at position 0 re-reads the whole surface as it stood before it.
    expect(line(stats.text, 'recent invalidations:')).toMatch(
      new RegExp(
        `^recent invalidations: s${checkpointSeq}@\\d+ ~\\d+ re-read \\(dcp\\), s${nativeSeq}@0 ~${surfaceBeforeNative} re-read \\(native\\)$`,
      ),
    );
    expect(line(stats.text, 'current surface:')).toBe(`current surface: ~${session.meter.measure().surfaceTokens}`);
    expect(stats.text.endsWith('\n\npersistent domain: unavailable (storage not wired)')).toBe(true);
  });
});
