/**
 * The head/tail candidates of SESSION-REFERENCE.md §10.2: O(1) probes equal the measures of the
 * materialised candidate, materialisation equals the byte-slicing definition, both measures are
 * non-decreasing in r, and code points are never split (Verification 45).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringifyTagSafeJson } from '../../../src/protocol/tag-safe-json.js';
import { createUtf8Cut, decimalDigits, omissionNotice } from '../../../src/workers/reference/utf8-cut.js';
import { candidateByDefinition } from '../../support/reference-definition.js';

const bytesOf = (text: string): number => Buffer.byteLength(text, 'utf8');
const jsonBytesOf = (text: string): number => Buffer.byteLength(stringifyTagSafeJson(text), 'utf8');

/** Verification 49's alphabet plus a BOM, DEL, C1, U+2028 and the short escapes. */
const unit = fc.constantFrom(
  'a',
  ' ',
  '<',
  '"',
  '\n',
  '\u0001',
  '界',
  '😀',
  '\ud800',
  '\udc00',
  '\ufeff',
  '\u007f',
  '\u0085',
  '\u2028',
  '\\',
  '\t',
  'é',
);
const text = fc.array(unit, { minLength: 1, maxLength: 60 }).map((units) => units.join(''));

describe('omissionNotice', () => {
  it('is the §10.2 literal with U+2026 ellipses', () => {
    expect(omissionNotice(1092)).toBe('\n[\u2026 omitted 1092 UTF-8 bytes \u2026]');
    expect(omissionNotice(0)).toBe('\n[… omitted 0 UTF-8 bytes …]');
    expect(bytesOf(omissionNotice(7))).toBe(32);
    expect(jsonBytesOf(omissionNotice(7))).toBe(35);
  });

  it('decimalDigits counts decimal digits', () => {
    expect([0, 9, 10, 99, 100, 1092, 114607, 2 ** 40].map(decimalDigits)).toEqual([1, 1, 2, 2, 3, 4, 6, 13]);
  });
});

describe('createUtf8Cut', () => {
  it('for every r, probes equal the measures of the definition candidate and materialise it exactly', () => {
    fc.assert(
      fc.property(text, (original) => {
        const cut = createUtf8Cut(original);
        expect(cut.totalBytes).toBe(bytesOf(original));
        let previousRaw = -1;
        let previousJson = -1;
        for (let r = 0; r < cut.totalBytes; r += 1) {
          const expected = candidateByDefinition(original, r);
          expect(cut.materialize(r)).toBe(expected.text);
          expect(cut.omittedOf(r)).toBe(expected.omitted);
          expect(cut.rawOf(r)).toBe(bytesOf(expected.text));
          expect(cut.jsonOf(r)).toBe(jsonBytesOf(expected.text));
          expect(cut.rawOf(r)).toBeGreaterThanOrEqual(previousRaw);
          expect(cut.jsonOf(r)).toBeGreaterThanOrEqual(previousJson);
          previousRaw = cut.rawOf(r);
          previousJson = cut.jsonOf(r);
        }
      }),
      { numRuns: 400 },
    );
  });

  it('Verification 45: a 界 straddling the head or tail cut is dropped whole and counted', () => {
    const cut = createUtf8Cut('界'.repeat(10));
    // r = 5: head 3 bytes (one whole 界), tail 2 bytes (inside the last 界, so none of it).
    expect(cut.materialize(5)).toBe(`界${omissionNotice(27)}`);
    expect(cut.omittedOf(5)).toBe(27);
    // r = 4: head 2 bytes cuts into the first 界.
    expect(cut.materialize(4)).toBe(omissionNotice(30));
    // r = 12: head 6 (two), tail 6 (two).
    expect(cut.materialize(12)).toBe(`界界界界${omissionNotice(18)}`);
  });

  it('Verification 45: an emoji straddling the cut is dropped whole (4 bytes)', () => {
    const cut = createUtf8Cut('a😀b');
    expect(cut.totalBytes).toBe(6);
    expect(cut.materialize(4)).toBe(`ab${omissionNotice(4)}`);
    expect(cut.rawOf(4)).toBe(2 + 32);
  });

  it('Verification 45: a lone surrogate in kept text becomes U+FFFD (3 bytes)', () => {
    const cut = createUtf8Cut('abcdefgh\udc00z');
    expect(cut.totalBytes).toBe(12);
    expect(cut.materialize(8)).toBe(`abcd\ufffdz${omissionNotice(4)}`);
    expect(cut.jsonOf(8)).toBe(2 + 4 + 3 + 1 + 32 + 1);
  });

  it('keeps a U+FEFF at the start of the head and of the tail', () => {
    const cut = createUtf8Cut('\ufeffabcdef\ufeffxy');
    expect(cut.totalBytes).toBe(14);
    // r = 10: head 5 bytes = BOM + 'ab'; tail 5 bytes = BOM + 'xy'; 'cdef' omitted.
    expect(cut.materialize(10)).toBe(`\ufeffab\ufeffxy${omissionNotice(4)}`);
  });

  it('rejects r outside 0..T−1', () => {
    const cut = createUtf8Cut('abc');
    for (const r of [-1, 3, 1.5, Number.NaN]) {
      expect(() => cut.rawOf(r)).toThrow(RangeError);
      expect(() => cut.materialize(r)).toThrow(`candidate retained byte count ${r} is outside 0..2`);
    }
  });
});
