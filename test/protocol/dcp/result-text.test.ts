import { describe, expect, it } from 'vitest';
import { buildCompressResultText } from '../../../src/protocol/dcp/result-text.js';

const clarity =
  'Full summaries are stored in the new checkpoints; any [stored in bN] in the inline tool-call arguments is only the cleanup marker, not the stored summary.';

describe('§18 item 26: result text shapes (§7.13)', () => {
  it('success with a clean cleanup: clarity sentence, one status line per entry, no warning line', () => {
    const result = buildCompressResultText(
      [
        { kind: 'committed', label: 'm0001..m0002', blockRef: 'b1', messageCount: 2, savedTokens: 120 },
        { kind: 'failed', label: 'm0002..m0009', error: 'endRef m0009 is not an active boundary (unknown ref); no valid cuts nearby' },
        { kind: 'committed', label: 'm0003..m0005', blockRef: 'b2', messageCount: 4, savedTokens: 300 },
        { kind: 'skipped', label: '?..m0007', reason: 'batch stopped after a host error' },
      ],
      { ok: true },
    );
    expect(result.isError).toBe(false);
    expect(result.text).toBe(
      [
        `Compressed 6 message(s) into b1, b2. ${clarity}`,
        'Range status:',
        '1. m0001..m0002: committed as b1 (2 message(s), ~120 tokens saved)',
        '2. m0002..m0009: failed: endRef m0009 is not an active boundary (unknown ref); no valid cuts nearby',
        '3. m0003..m0005: committed as b2 (4 message(s), ~300 tokens saved)',
        '4. ?..m0007: skipped: batch stopped after a host error',
      ].join('\n'),
    );
  });

  it('a cleanup warning drops the clarity sentence and adds the warning line', () => {
    const result = buildCompressResultText(
      [{ kind: 'committed', label: 'm0001..m0004', blockRef: 'b1', messageCount: 3, savedTokens: 50 }],
      {
        ok: false,
        warning: 'author assistant message not found for inline cleanup',
      },
    );
    expect(result.text).toBe(
      'Compressed 3 message(s) into b1.\nRange status:\n1. m0001..m0004: committed as b1 (3 message(s), ~50 tokens saved)\n(cleanup warning: author assistant message not found for inline cleanup)',
    );
  });

  it('bracket left open after a committed checkpoint', () => {
    const result = buildCompressResultText(
      [{ kind: 'committed', label: 'm0001..m0002', blockRef: 'b3', messageCount: 1, savedTokens: 9, bracketLeftOpen: 'append failed' }],
      { ok: true },
    );
    expect(result.text.split('\n')[2]).toBe(
      '1. m0001..m0002: committed as b3 (1 message(s), ~9 tokens saved); bracket left open: append failed',
    );
  });

  it('nothing committed → isError, "No range was compressed." and the same status block, no warning line', () => {
    const result = buildCompressResultText(
      [{ kind: 'failed', label: 'm0001..m0002', error: 'range m0001..m0002 saves ~3 tokens, below minNetSavingsTokens=100000' }],
      { ok: false, warning: 'ignored' },
    );
    expect(result).toEqual({
      isError: true,
      text: 'No range was compressed.\nRange status:\n1. m0001..m0002: failed: range m0001..m0002 saves ~3 tokens, below minNetSavingsTokens=100000',
    });
  });
});
