/**
 * Retention goldens G1–G8 (SESSION-REFERENCE.md §10.7) and Verification 33, 43–48 and 53. Expected
 * texts, sizes, stats and rounds are the spec's literals; dsh's divergent outputs (G6, G7) are
 * pinned on the in-test dsh port as the recorded divergence of D3.
 */
import { describe, expect, it } from 'vitest';
import { stringifyTagSafeJson } from '../../../src/protocol/tag-safe-json.js';
import type { ProjectedItem } from '../../../src/workers/reference/project-surface.js';
import { assembleReferencePrompt } from '../../../src/workers/reference/reference-prompt.js';
import type { RetainedSource, RetentionInput } from '../../../src/workers/reference/retain-source.js';
import { fixedDataBytes, retainSource } from '../../../src/workers/reference/retain-source.js';
import { retainByDefinition, retainLikeDsh } from '../../support/reference-definition.js';

const user = (text: string, checkpoint = false): ProjectedItem => ({ role: 'user', originalText: text, checkpoint });
const assistant = (text: string): ProjectedItem => ({ role: 'assistant', originalText: text, checkpoint: false });
const notice = (omitted: number): string => `\n[\u2026 omitted ${omitted} UTF-8 bytes \u2026]`;
const bytes = (text: string): number => Buffer.byteLength(text, 'utf8');

function source(id: string, capturedThroughSeq: number | null, items: ProjectedItem[]): RetentionInput {
  return { sessionId: id, label: id, cwd: null, capturedThroughSeq, items };
}

function fitted(input: RetentionInput, max: number): RetainedSource {
  const result = retainSource(input, max);
  if (!result.fits) throw new Error('expected the source to fit');
  return result;
}

/** The retained texts of a serialised data object. */
function texts(json: string): string[] {
  return (JSON.parse(json) as { conversation: { text: string }[] }).conversation.map((item) => item.text);
}

const CHECKPOINT = '<compacted-summary>checkpoint</compacted-summary>';
const g1 = source('source', 14, [
  user(CHECKPOINT, true),
  user('recent user'),
  user('human steer'),
  assistant('visible answer'),
  assistant(`latest-${'界'.repeat(400)}`),
]);
const g2 = (id: string) => source(id, 1, [user(`${id}-${'界'.repeat(400)}`, true), user(`${id}-tail`)]);

describe('goldens (§10.7)', () => {
  it('G1 and Verification 33', () => {
    const result = fitted(g1, 360);
    expect(texts(result.json)).toEqual([CHECKPOINT, `latest-${'界'.repeat(36)}${notice(1092)}`]);
    expect(bytes(result.json)).toBe(358);
    expect(result.stats).toEqual({
      compacted: true,
      originalMessages: 5,
      retainedMessages: 2,
      omittedMessages: 3,
      omittedBytes: 1128,
      truncated: true,
    });
    expect(result.rounds).toBe(2);
    const prompt = assembleReferencePrompt([result.json]);
    for (const fragment of ['checkpoint', 'latest-', 'omitted']) expect(prompt).toContain(fragment);
  });

  it('G2 (one, two), G3 (three) and Verification 33: each ≤ 360, together > 720', () => {
    const results = ['one', 'two', 'three'].map((id) => fitted(g2(id), 360));
    const [one, two, three] = results as [RetainedSource, RetainedSource, RetainedSource];
    for (const [id, result] of [
      ['one', one],
      ['two', two],
    ] as const) {
      expect(texts(result.json)).toEqual([`${id}-${'界'.repeat(58)}${notice(1026)}`, `${id}-tail`]);
      expect(bytes(result.json)).toBe(358);
      expect(result.stats).toMatchObject({ omittedMessages: 0, omittedBytes: 1026, truncated: true, compacted: true });
    }
    expect(texts(three.json)).toEqual([`three-${'界'.repeat(56)}${notice(1032)}`, 'three-tail']);
    expect(bytes(three.json)).toBe(360);
    expect(three.rounds).toBe(1);
    const sizes = results.map((result) => bytes(result.json));
    for (const size of sizes) expect(size).toBeLessThanOrEqual(360);
    expect(sizes.reduce((sum, size) => sum + size, 0)).toBeGreaterThan(720);
  });

  it('G4 and Verification 33: no items, fixed part 94 bytes, max 16 → does not fit', () => {
    const g4 = source('source', null, []);
    expect(fixedDataBytes(g4)).toBe(94);
    expect(retainSource(g4, 16)).toEqual({ fits: false });
  });

  it('G5 and Verification 46: escape-rich text shortened exactly as dsh does', () => {
    const g5 = source('s', 1, [user('line\n'.repeat(30000))]);
    const result = fitted(g5, 65536);
    const [text] = texts(result.json) as [string];
    expect(bytes(text)).toBe(35430);
    expect(text.endsWith(notice(114607))).toBe(true);
    expect(bytes(result.json)).toBe(42616);
    const dsh = retainLikeDsh(g5, 65536);
    expect(dsh.reachedSilentDrop).toBe(false);
    expect(dsh.fits && dsh.json).toBe(result.json);
  });

  it('G6 and Verification 47: the silent-drop input keeps a notice (D3); dsh empties the text', () => {
    const g6 = source('s', 1, [user('<'.repeat(100000))]);
    const result = fitted(g6, 65536);
    expect(texts(result.json)).toEqual([`${'<'.repeat(10898)}${notice(89102)}`]);
    expect(bytes(result.json)).toBe(65531);
    expect(result.stats.omittedBytes).toBe(89102);
    // Recorded divergence: dsh 0.1.1-rc.2 returns '' with all 100,000 bytes omitted.
    const dsh = retainLikeDsh(g6, 65536);
    expect(dsh.reachedSilentDrop).toBe(true);
    if (!dsh.fits) throw new Error('dsh fits G6');
    expect(texts(dsh.json)).toEqual(['']);
    expect(dsh.stats.omittedBytes).toBe(100000);
  });

  it('G7 and Verification 48: mandatory items that cannot fit even as notices fail (D3); dsh empties both', () => {
    const g7 = source('source', 3, [user('x'.repeat(300), true), assistant('y'.repeat(300))]);
    expect(retainSource(g7, 150)).toEqual({ fits: false });
    const dsh = retainLikeDsh(g7, 150);
    expect(dsh.reachedSilentDrop).toBe(true);
    if (!dsh.fits) throw new Error('dsh fits G7');
    expect(texts(dsh.json)).toEqual(['', '']);
    expect(dsh.stats.omittedBytes).toBe(600);
    expect(bytes(dsh.json)).toBe(147);
  });

  it('G8 and Verification 46: identical to dsh, 2 rounds', () => {
    const g8 = source('s', 1, [user('a'.repeat(100000))]);
    const result = fitted(g8, 65536);
    expect(texts(result.json)).toEqual([`${'a'.repeat(65393)}${notice(34607)}`]);
    expect(bytes(result.json)).toBe(65536);
    expect(result.rounds).toBe(2);
    const dsh = retainLikeDsh(g8, 65536);
    expect(dsh.reachedSilentDrop).toBe(false);
    expect(dsh.fits && dsh.json).toBe(result.json);
    expect(dsh.fits && dsh.rounds).toBe(2);
  });

  it('the definition oracle reproduces every golden too', () => {
    for (const [input, max] of [
      [g1, 360],
      [g2('one'), 360],
      [g2('three'), 360],
    ] as const) {
      const oracle = retainByDefinition(input, max);
      expect(oracle.fits && oracle.json).toBe(fitted(input, max).json);
    }
    expect(retainByDefinition(source('source', 3, [user('x'.repeat(300), true), assistant('y'.repeat(300))]), 150)).toEqual({
      fits: false,
    });
  });
});

/** The tag-safe size of a data object with these items retained (test-side measurement). */
function measured(input: RetentionInput, kept: readonly ProjectedItem[]): number {
  const conversation = kept.map((item) => ({ role: item.role, text: item.originalText }));
  return bytes(
    stringifyTagSafeJson({
      sessionId: input.sessionId,
      label: input.label,
      cwd: input.cwd,
      capturedThroughSeq: input.capturedThroughSeq,
      conversation,
    }),
  );
}

describe('Phase A (Verification 43)', () => {
  const c1 = user('first checkpoint', true);
  const u1 = user('user one');
  const a1 = assistant('assistant one, longer than the user');
  const c2 = user('second checkpoint', true);
  const u2 = user('newest user');
  const input = source('s', 9, [c1, u1, a1, c2, u2]);

  it('one drop removes u1, the first droppable item', () => {
    const result = fitted(input, measured(input, [c1, a1, c2, u2]));
    expect(texts(result.json)).toEqual([c1.originalText, a1.originalText, c2.originalText, u2.originalText]);
    expect(result.stats).toMatchObject({ omittedMessages: 1, omittedBytes: bytes(u1.originalText), retainedMessages: 4 });
    expect(result.rounds).toBe(0);
  });

  it('two drops remove u1 then a1; checkpoints and the newest item stay; dropped bytes are counted', () => {
    const result = fitted(input, measured(input, [c1, c2, u2]));
    expect(texts(result.json)).toEqual([c1.originalText, c2.originalText, u2.originalText]);
    expect(result.stats).toEqual({
      compacted: true,
      originalMessages: 5,
      retainedMessages: 3,
      omittedMessages: 2,
      omittedBytes: bytes(u1.originalText) + bytes(a1.originalText),
      truncated: true,
    });
  });
});

describe('Phase B (Verification 44)', () => {
  // Worked by hand from §10.3: fixed = 81; size = 81 + 2 × (23 + 102) + 1 = 332; max 282.
  // Round 1: tie at 100 raw bytes → item 0; tgt 50 → r 17, o 83; J 53 → size 283.
  // Round 2: item 1 (100 > 50); tgt 99 → r 66, o 34; J 102 → size 283.
  // Round 3: item 1 again (99 > 50); restart from the original, tgt 98 → r 65, o 35; J 101 → 282.
  const input = source('s', 1, [user('a'.repeat(100), true), user('b'.repeat(100))]);

  it('selects the longest text, ties to the first, re-shortens from the original and replaces omittedBytes', () => {
    expect(fixedDataBytes(input)).toBe(81);
    const result = fitted(input, 282);
    expect(texts(result.json)).toEqual([`${'a'.repeat(17)}${notice(83)}`, `${'b'.repeat(65)}${notice(35)}`]);
    expect(bytes(result.json)).toBe(282);
    expect(result.rounds).toBe(3);
    expect(result.stats).toEqual({
      compacted: true,
      originalMessages: 2,
      retainedMessages: 2,
      omittedMessages: 0,
      omittedBytes: 83 + 35,
      truncated: true,
    });
  });
});

describe('Phase B failure (§10.3 step 1)', () => {
  it('fails when no retained text has a byte left to omit (empty texts, or no items at all)', () => {
    // 81 + 23 + 2 = 106 bytes with one empty user text; nothing can be shortened.
    const empty = source('s', 1, [user(''), user('')]);
    expect(retainSource(empty, 100)).toEqual({ fits: false });
    expect(retainByDefinition(empty, 100)).toEqual({ fits: false });
    expect(retainSource(source('s', 1, []), 80)).toEqual({ fits: false });
  });
});

describe('code points through retention (Verification 45)', () => {
  it('a 界 straddling the tail cut is dropped whole and counted; a kept lone surrogate becomes U+FFFD', () => {
    // 3 + 2 + 60 + 6 = 71 bytes; J = 2 + 6 + 2 + 60 + 6 = 76; size = 81 + 23 + 76 = 180; max 150.
    // over 30 → tgt 41 → r = 10: head 5 bytes (U+FFFD, a, b); tail 5 bytes starts inside the first
    // 界, so only the last 界 is kept; o = 71 − 8 = 63; J(new) = 2 + 5 + 3 + 32 + 2 = 44 → size 148.
    const input = source('s', 1, [user(`\ud800ab${'x'.repeat(60)}界界`)]);
    const result = fitted(input, 150);
    expect(texts(result.json)).toEqual([`\ufffdab界${notice(63)}`]);
    expect(result.stats.omittedBytes).toBe(63);
    expect(bytes(result.json)).toBe(148);
    expect(result.rounds).toBe(1);
  });
});

describe('stats flags (Verification 53)', () => {
  it('truncated is false when everything fits, true for drops only and for shortening only', () => {
    const fits = fitted(g1, 100000);
    expect(fits.stats).toEqual({
      compacted: true,
      originalMessages: 5,
      retainedMessages: 5,
      omittedMessages: 0,
      omittedBytes: 0,
      truncated: false,
    });
    const dropsOnly = source('s', 1, [user('old'), user('new')]);
    expect(fitted(dropsOnly, measured(dropsOnly, [dropsOnly.items[1]!])).stats).toMatchObject({
      omittedMessages: 1,
      omittedBytes: 3,
      truncated: true,
    });
    const shortenOnly = fitted(g2('one'), 360);
    expect(shortenOnly.stats).toMatchObject({ omittedMessages: 0, truncated: true });
  });

  it('compacted reflects the projected items before retention, not the retained ones', () => {
    expect(fitted(source('s', 1, [user('plain')]), 1000).stats.compacted).toBe(false);
    // The checkpoint is shortened to a notice but the source still counts as compacted.
    const shortenedCheckpoint = fitted(source('s', 1, [user('c'.repeat(500), true), user('tail')]), 200);
    expect(texts(shortenedCheckpoint.json)[0]).toMatch(/omitted \d+ UTF-8 bytes/);
    expect(shortenedCheckpoint.stats.compacted).toBe(true);
  });
});
