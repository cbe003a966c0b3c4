/**
 * Randomised equivalence of the fast retention method (SESSION-REFERENCE.md §10.6) with the literal
 * definition of §10.3 (Verification 50) and with dsh's loop wherever dsh never reaches its silent
 * drop (Verification 49, the compatibility clause of D3), plus the size identity of §10.1
 * (Verification 52) and the stats flags (Verification 53).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringifyTagSafeJson, tagSafeJsonStringBytes } from '../../../src/protocol/tag-safe-json.js';
import type { ProjectedItem } from '../../../src/workers/reference/project-surface.js';
import type { RetentionInput } from '../../../src/workers/reference/retain-source.js';
import { conversationItemBytes, fixedDataBytes, retainSource } from '../../../src/workers/reference/retain-source.js';
import { retainByDefinition, retainLikeDsh } from '../../support/reference-definition.js';

/** Verification 49's alphabet: a, space, <, ", LF, U+0001, 界, an emoji, a lone surrogate. */
const unit = fc.constantFrom('a', ' ', '<', '"', '\n', '\u0001', '界', '😀', '\ud800');
/** Lengths uniform in 1..maxLength (fast-check's default size bias would keep texts too short to shorten). */
const text = (maxLength: number) =>
  fc
    .integer({ min: 1, max: maxLength })
    .chain((length) => fc.array(unit, { minLength: length, maxLength: length }))
    .map((units) => units.join(''));

const item: fc.Arbitrary<ProjectedItem> = fc
  .record({ role: fc.constantFrom('user' as const, 'assistant' as const), originalText: text(160), checkpoint: fc.boolean() })
  .map(({ role, originalText, checkpoint }) => ({ role, originalText, checkpoint: role === 'user' && checkpoint }));

const input: fc.Arbitrary<RetentionInput> = fc.record({
  sessionId: fc.constantFrom('s', 'source', '会话<1>'),
  label: fc.array(unit, { maxLength: 6 }).map((units) => units.join('')),
  cwd: fc.constantFrom(null, '/w', '/工作/"x"'),
  capturedThroughSeq: fc.oneof(fc.constant(null), fc.nat(5000)),
  items: fc.array(item, { maxLength: 8, size: 'max' }),
});

const cap = fc.integer({ min: 60, max: 660 });

describe('retention equivalence (Verification 49, 50, 53)', () => {
  it('on 5,000 random inputs the fast method equals the definition, and dsh where dsh never drops silently', () => {
    let dshComparable = 0;
    let dshComparableShortened = 0;
    let silentDrops = 0;
    let fitting = 0;
    fc.assert(
      fc.property(input, cap, (source, max) => {
        const fast = retainSource(source, max);
        const definition = retainByDefinition(source, max);
        expect(fast.fits).toBe(definition.fits);
        if (fast.fits && definition.fits) {
          fitting += 1;
          expect(fast.json).toBe(definition.json);
          expect(fast.stats).toEqual(definition.stats);
          expect(fast.rounds).toBe(definition.rounds);
          expect(Buffer.byteLength(fast.json, 'utf8')).toBeLessThanOrEqual(max);
          expect(fast.stats.truncated).toBe(fast.stats.omittedMessages > 0 || fast.stats.omittedBytes > 0);
          expect(fast.stats.compacted).toBe(source.items.some((entry) => entry.checkpoint));
          expect(fast.stats.originalMessages).toBe(source.items.length);
        }
        const dsh = retainLikeDsh(source, max);
        if (dsh.reachedSilentDrop) {
          silentDrops += 1;
          return;
        }
        dshComparable += 1;
        expect(fast.fits).toBe(dsh.fits);
        if (fast.fits && dsh.fits) {
          if (dsh.rounds > 0) dshComparableShortened += 1;
          expect(fast.json).toBe(dsh.json);
          expect(fast.stats).toEqual(dsh.stats);
          expect(fast.rounds).toBe(dsh.rounds);
        }
      }),
      { numRuns: 5000 },
    );
    // The corpus must exercise every branch, or the comparisons above would be vacuous.
    expect(dshComparable).toBeGreaterThan(1000);
    expect(dshComparableShortened).toBeGreaterThan(250);
    expect(silentDrops).toBeGreaterThan(300);
    expect(fitting).toBeGreaterThan(1500);
  });
});

/** Strings with any code point, plus lone surrogates and every character tag-safe JSON treats specially. */
const anyText = fc.string({
  unit: fc.oneof(
    fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
    fc.constantFrom(
      '\ud800',
      '\udfff',
      '<',
      '>',
      '"',
      '\\',
      '\u0000',
      '\u001f',
      '\b',
      '\f',
      '\n',
      '\r',
      '\t',
      '\u007f',
      '\u0085',
      '\u2028',
      '\u2029',
      '\ufeff',
    ),
  ),
  maxLength: 40,
});

describe('size identity (Verification 52)', () => {
  it('fixed + Σ item(i) + max(0, k − 1) equals the measured tag-safe byte length of the data object', () => {
    fc.assert(
      fc.property(
        fc.record({
          sessionId: anyText,
          label: anyText,
          cwd: fc.oneof(fc.constant(null), anyText),
          capturedThroughSeq: fc.oneof(fc.constant(null), fc.maxSafeNat()),
          conversation: fc.array(fc.record({ role: fc.constantFrom('user' as const, 'assistant' as const), text: anyText }), {
            maxLength: 6,
          }),
        }),
        (data) => {
          const formula =
            fixedDataBytes(data) +
            data.conversation.reduce((sum, entry) => sum + conversationItemBytes(entry.role, tagSafeJsonStringBytes(entry.text)), 0) +
            Math.max(0, data.conversation.length - 1);
          expect(formula).toBe(Buffer.byteLength(stringifyTagSafeJson(data), 'utf8'));
        },
      ),
      { numRuns: 2000 },
    );
  });
});
