import { describe, expect, it } from 'vitest';
import { formatContextBlock } from '../../../src/protocol/dcp/context-block.js';
import { formatDecompressShow, formatShowBlock } from '../../../src/protocol/dcp/show-block.js';
import { cursorAheadReason, formatDomainStats, formatSessionStats, formatStatsOutput } from '../../../src/protocol/dcp/stats-block.js';
import { EMPTY_LEDGER, historyReduction } from '../../../src/protocol/dcp/ledger.js';
import { recompressMeta } from '../../../src/protocol/dcp/dcp-meta.js';
import { compressMeta } from '../../../src/protocol/dcp/dcp-meta.js';
import { renderLeafTranscript } from '../../../src/protocol/dcp/leaf-transcript.js';
import {
  expansionCapTokens,
  expansionTooLargeReason,
  noActiveExpansionReason,
  notActiveSummaryReason,
  OPEN_TURN_REQUIRED_REASON,
  EXPANSION_BUSY_REASON,
} from '../../../src/protocol/dcp/expansion-rules.js';

const ledger = {
  ...EMPTY_LEDGER,
  shadowedTokens: 500,
  checkpointTokens: 120,
  blockCount: 2,
  pruneTokens: 40,
  pruneReplacements: 1,
  cleanupTokens: 30,
  inlineCleanups: 1,
  markerTokens: 60,
  expansionTokens: -10,
};

describe('§15.2 session stats block (exact labels)', () => {
  it('renders every label in order', () => {
    expect(historyReduction(ledger)).toBe(500 + 40 - 120 + 30 - 10 - 60);
    const text = formatSessionStats({
      ledger,
      activeBlockCount: 1,
      invalidationCounts: { dcp: 2, native: 1, mixed: 0 },
      recentInvalidations: [
        { firstSeq: 31, position: 0, reReadTokens: 900, cause: 'dcp' },
        { firstSeq: 80, position: 4, reReadTokens: 300, cause: 'native' },
      ],
      surfaceTokens: 1234,
    });
    expect(text).toBe(
      [
        'DCP statistics (heuristic token estimates):',
        'blocks (hist/act): 2/1',
        'shadowed tokens: ~500',
        'checkpoint tokens: ~120',
        'prune tokens: ~40',
        'cleanup savings: ~30',
        'expansion delta: ~-10',
        'marker tokens: ~60',
        'history reduction: ~380',
        'prune replacements: 1',
        'inline cleanups: 1',
        'prefix invalidations: 3 (dcp 2, native 1, mixed 0)',
        'recent invalidations: s31@0 ~900 re-read (dcp), s80@4 ~300 re-read (native)',
        'current surface: ~1234',
      ].join('\n'),
    );
  });

  it('negative history reduction is labelled overhead; no invalidations shows (none)', () => {
    const text = formatSessionStats({
      ledger: { ...EMPTY_LEDGER, markerTokens: 15 },
      activeBlockCount: 0,
      invalidationCounts: { dcp: 0, native: 0, mixed: 0 },
      recentInvalidations: [],
      surfaceTokens: 10,
    });
    expect(text).toContain('\nhistory reduction: ~-15 (overhead)\n');
    expect(text).toContain('\nrecent invalidations: (none)\n');
  });
});

describe('§15.3 domain block', () => {
  it('current, stale, unavailable and the invalid-records line', () => {
    expect(
      formatDomainStats({
        status: 'current',
        sessions: 3,
        blocks: 7,
        historyReduction: 4200,
        lastSync: '2026-08-28T10:00:00.000Z',
        invalidRecordsSkipped: 0,
      }),
    ).toBe(
      'persistent domain: current (single-process scope)\nsessions: 3\nblocks: 7\nhistory reduction: ~4200\nlast sync: 2026-08-28T10:00:00.000Z',
    );
    expect(
      formatDomainStats({
        status: 'stale',
        reason: cursorAheadReason(90, 80),
        sessions: 2,
        blocks: 5,
        observedCursor: 80,
        invalidRecordsSkipped: 1,
      }),
    ).toBe(
      'persistent domain: stale (stored cursor 90 ahead of observed 80)\nsessions (old view): 2\nblocks (old view): 5\nobserved cursor: 80\ninvalid records skipped: 1',
    );
    expect(formatDomainStats({ status: 'unavailable', reason: 'storage not wired', invalidRecordsSkipped: 0 })).toBe(
      'persistent domain: unavailable (storage not wired)',
    );
    expect(
      formatStatsOutput(
        {
          ledger: EMPTY_LEDGER,
          activeBlockCount: 0,
          invalidationCounts: { dcp: 0, native: 0, mixed: 0 },
          recentInvalidations: [],
          surfaceTokens: 0,
        },
        { status: 'unavailable', reason: 'storage not wired', invalidRecordsSkipped: 0 },
      ),
    ).toMatch(/current surface: ~0\n\npersistent domain: unavailable \(storage not wired\)$/);
  });
});

describe('§11.3 context and show blocks', () => {
  it('context block with and without the optional lines', () => {
    const base = {
      surfaceTokens: 800,
      messageTokens: 600,
      systemTokens: 150,
      toolsTokens: 50,
      ratio: 0.804,
      contextWindow: 1000,
      projectedTokens: 800,
      activeBlocks: ['b1', 'b2'],
      boundaries: ['b1', 'm0004', 'b2', 'm0005'],
      manualOn: false,
      unreadable: [],
    };
    expect(formatContextBlock(base)).toBe(
      [
        'DCP context (heuristic token estimates):',
        'surface tokens ~800',
        'message tokens ~600',
        'system tokens ~150',
        'tools tokens ~50',
        'pressure ~80% of 1000',
        'projected ~800',
        'active blocks: b1, b2',
        'boundaries: b1, m0004, b2, m0005',
        'manual mode: OFF',
      ].join('\n'),
    );
    const busy = formatContextBlock({
      ...base,
      ratio: undefined,
      contextWindow: undefined,
      activeBlocks: [],
      manualOn: true,
      busyCompactionId: 'native-1',
      unreadable: [
        { seq: 12, code: 'UNSUPPORTED_VERSION' },
        { seq: 40, code: 'INVALID_KIND' },
      ],
    });
    expect(busy.split('\n').slice(5)).toEqual([
      'pressure n/a (no context window)',
      'projected ~800',
      'active blocks: (none)',
      'boundaries: b1, m0004, b2, m0005',
      'manual mode: ON',
      'compaction lock: busy (native-1)',
      'unreadable DCP checkpoints: s12 (UNSUPPORTED_VERSION), s40 (INVALID_KIND)',
    ]);
  });

  it('show block, recompressed-from line, raw transcript and the decompress note', () => {
    const meta = compressMeta({
      blockRef: 'b1',
      topic: 'parser',
      startRef: 'm0001',
      endRef: 'm0003',
      authorMessageId: 'a',
      compressCallId: 'c',
      consumedBlockRefs: [],
      protectedKinds: [],
    });
    const text = '[Compressed conversation section]\nS\n\n<dcp-message-id>b1</dcp-message-id>';
    expect(formatShowBlock({ meta, membership: 'consumed', text })).toBe(
      `Block b1:\nkind: summary\nmode: range\ntopic: parser\nstatus: consumed\nrange: m0001..m0003\nconsumed blocks: (none)\nsummary:\n${text}`,
    );
    const recompressed = formatShowBlock({ meta: recompressMeta('b1', 'b2', 'b3', []), membership: 'active', text: 'T' });
    expect(recompressed).toBe(
      'Block b3:\nkind: summary\nmode: range\ntopic: recompression\nstatus: active\nrange: b2..(none)\nconsumed blocks: b2\nrecompressed from: b1\nsummary:\nT',
    );
    const raw = { leafCount: 1, transcript: '--- leaf 3 (user) ---\nhello' };
    expect(formatDecompressShow({ meta, membership: 'active', text: 'T', raw })).toBe(
      'Block b1:\nkind: summary\nmode: range\ntopic: parser\nstatus: active\nrange: m0001..m0003\nconsumed blocks: (none)\nsummary:\nT\n\nOriginal leaf nodes (1):\n--- leaf 3 (user) ---\nhello\n\nNote: model context is unchanged (raw show only). Use --into-context to expand.',
    );
  });
});

describe('§12 pure parts: leaf transcript and expansion rules', () => {
  it('renders user, assistant (text, reasoning left out, tool calls) and tool results / errors, leaves separated by a blank line', () => {
    const transcript = renderLeafTranscript([
      {
        seq: 3,
        role: 'user',
        content: [
          { type: 'text', text: 'read a.txt' },
          { type: 'image', url: 'u' },
        ],
      },
      {
        seq: 5,
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'thinking' },
          { type: 'text', text: 'reading' },
          { type: 'tool-call', id: 'c1', name: 'read', arguments: '{"file_path":"a.txt"}' },
        ],
      },
      {
        seq: 7,
        role: 'tool',
        toolName: 'read',
        content: [{ type: 'tool-result', toolCallId: 'c1', isError: false, content: [{ type: 'text', text: 'A' }] }],
      },
      {
        seq: 9,
        role: 'tool',
        toolName: 'bash',
        content: [{ type: 'tool-result', toolCallId: 'c2', isError: true, content: [{ type: 'text', text: 'exit 1' }] }],
      },
    ]);
    expect(transcript).toBe(
      [
        '--- leaf 3 (user) ---',
        'read a.txt',
        '[image block]',
        '',
        '--- leaf 5 (assistant) ---',
        'reading',
        '[tool call read id=c1] {"file_path":"a.txt"}',
        '',
        '--- leaf 7 (tool) ---',
        '[tool result read id=c1] A',
        '',
        '--- leaf 9 (tool) ---',
        '[tool error bash id=c2] exit 1',
      ].join('\n'),
    );
  });

  it('expansion reasons and cap', () => {
    expect(notActiveSummaryReason('b1')).toBe('b1 is not an active summary block');
    expect(EXPANSION_BUSY_REASON).toBe('compaction is busy: an unclosed bracket holds the session lock');
    expect(OPEN_TURN_REQUIRED_REASON).toBe('recovery mutation requires an open turn (control turn)');
    expect(expansionTooLargeReason('b1', 5000, 2500)).toBe('b1 expansion needs ~5000 tokens, above the expansion cap of ~2500 tokens');
    expect(noActiveExpansionReason('b1')).toBe('b1 has no active semantic expansion to recompress');
    expect(expansionCapTokens(10001, 0.25, 32000)).toBe(2500);
    expect(expansionCapTokens(undefined, 0.25, 32000)).toBe(32000);
  });
});
