import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escapeDisplayText } from '../../../src/protocol/uri/display-escape.js';
import { arbitraryJsString } from './string-arbitraries.js';

/** The set E of §6.1, spelled as the spec lists it. */
const E_RANGES: [number, number][] = [
  [0x0000, 0x001f],
  [0x007f, 0x007f],
  [0x0080, 0x009f],
  [0x200b, 0x200b],
  [0x200e, 0x200f],
  [0x202a, 0x202e],
  [0x2060, 0x2064],
  [0x2066, 0x206f],
  [0xfeff, 0xfeff],
];

function inE(code: number): boolean {
  return E_RANGES.some(([low, high]) => code >= low && code <= high);
}

/** `\u{` + uppercase hex zero-padded to 4 digits + `}` (§6.1). */
function visible(code: number): string {
  return `\\u{${code.toString(16).toUpperCase().padStart(4, '0')}}`;
}

describe('escapeDisplayText (§6.1)', () => {
  it('matches the spec examples', () => {
    expect(escapeDisplayText('a\u001bb')).toBe('a\\u{001B}b');
    expect(escapeDisplayText('line\n')).toBe('line\\u{000A}');
    expect(escapeDisplayText('\t')).toBe('\\u{0009}');
    expect(escapeDisplayText('\u202e')).toBe('\\u{202E}');
    expect(escapeDisplayText('\u007f')).toBe('\\u{007F}');
    expect(escapeDisplayText('\u0085')).toBe('\\u{0085}');
    expect(escapeDisplayText('\u00a0 🚀 会话')).toBe('\u00a0 🚀 会话');
  });

  it('escapes NUL, BOM and the edges of every range', () => {
    expect(escapeDisplayText('\u0000')).toBe('\\u{0000}');
    expect(escapeDisplayText('\ufeff')).toBe('\\u{FEFF}');
    expect(escapeDisplayText('\u001f\u0020\u007e\u009f\u00a0')).toBe('\\u{001F} ~\\u{009F}\u00a0');
    expect(escapeDisplayText('\u200a\u200b\u200c\u200d\u200e\u200f\u2010')).toBe('\u200a\\u{200B}\u200c\u200d\\u{200E}\\u{200F}\u2010');
    expect(escapeDisplayText('\u2029\u202a\u202e\u202f')).toBe('\u2029\\u{202A}\\u{202E}\u202f');
    expect(escapeDisplayText('\u205f\u2060\u2064\u2065\u2066\u206f\u2070')).toBe('\u205f\\u{2060}\\u{2064}\u2065\\u{2066}\\u{206F}\u2070');
  });

  it('keeps `\\`, `]`, U+2028, lone surrogates and astral code points unchanged', () => {
    const kept = '\\]\u2028\ud800x\udc00\udc00\ud800🚀\u{E0001}';
    expect(escapeDisplayText(kept)).toBe(kept);
  });

  it('escapes exactly the code points of E over the whole BMP (surrogates excluded)', () => {
    for (let code = 0; code <= 0xffff; code += 1) {
      if (code >= 0xd800 && code <= 0xdfff) continue;
      const character = String.fromCharCode(code);
      expect(escapeDisplayText(`a${character}b`)).toBe(inE(code) ? `a${visible(code)}b` : `a${character}b`);
    }
  });

  it('is idempotent', () => {
    fc.assert(
      fc.property(arbitraryJsString(60), (text) => {
        const once = escapeDisplayText(text);
        expect(escapeDisplayText(once)).toBe(once);
      }),
      { numRuns: 3000 },
    );
  });

  it('equals a per-code-point definition for arbitrary strings', () => {
    fc.assert(
      fc.property(arbitraryJsString(60), (text) => {
        let expected = '';
        for (let index = 0; index < text.length; index += 1) {
          const code = text.charCodeAt(index);
          expected += inE(code) ? visible(code) : text[index];
        }
        expect(escapeDisplayText(text)).toBe(expected);
      }),
      { numRuns: 3000 },
    );
  });
});
