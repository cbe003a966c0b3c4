// Snippets (issue 17 item 3): markers parsed back to exact ranges, the excerpt bounded (ellipses included), control
// characters escaped and line breaks shown as spaces, highlights pointing at the matched text, surrogate pairs whole.
import { describe, expect, it } from 'vitest';
import { buildSnippet, highlightMarkers, parseHighlighted } from '../../../src/workers/search/snippet.js';

const markers = highlightMarkers('00ff00ff00ff00ff00ff00ff');
const mark = (text: string): string => `${markers.open}${text}${markers.close}`;

describe('parseHighlighted', () => {
  it('returns the original text and the ranges of each marked match', () => {
    const parsed = parseHighlighted(`a ${mark('café')} b ${mark('cafe')}`, markers);
    expect(parsed.text).toBe('a café b cafe');
    expect(parsed.matches).toEqual([
      [2, 6],
      [9, 13],
    ]);
  });

  it('text that looks like markers without the nonce stays text', () => {
    const parsed = parseHighlighted('\uE000fake\uE001 x', markers);
    expect(parsed).toEqual({ text: '\uE000fake\uE001 x', matches: [] });
  });
});

describe('buildSnippet', () => {
  it('keeps a short document whole and highlights exactly the match', () => {
    const { snippet, highlights } = buildSnippet(parseHighlighted(`The ${mark('rounding')} in cartTotal`, markers), 160);
    expect(snippet).toBe('The rounding in cartTotal');
    expect(highlights.map(([start, end]) => snippet.slice(start, end))).toEqual(['rounding']);
  });

  it('bounds a long document around the first match, with ellipses, within maxLength', () => {
    const text = `${'word '.repeat(200)}${mark('needle')}${' tail'.repeat(200)}`;
    for (const length of [16, 40, 160]) {
      const { snippet, highlights } = buildSnippet(parseHighlighted(text, markers), length);
      expect(snippet.length).toBeLessThanOrEqual(length);
      expect(snippet.startsWith('…')).toBe(true);
      expect(snippet.endsWith('…')).toBe(true);
      expect(highlights.map(([start, end]) => snippet.slice(start, end))).toEqual(['needle']);
    }
  });

  it('escapes control characters, shows line breaks as spaces, and shifts highlights accordingly', () => {
    const { snippet, highlights } = buildSnippet(parseHighlighted(`a\u001b[2J\nb ${mark('hit')}\u0007`, markers), 160);
    expect(snippet).toBe('a\\u{001B}[2J b hit\\u{0007}');
    expect(highlights.map(([start, end]) => snippet.slice(start, end))).toEqual(['hit']);
  });

  it('never splits a surrogate pair at a cut', () => {
    const text = `${'😀'.repeat(50)}${mark('x')}${'😀'.repeat(50)}`;
    const { snippet } = buildSnippet(parseHighlighted(text, markers), 21);
    expect(snippet.length).toBeLessThanOrEqual(21);
    expect(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(snippet)).toBe(false);
    expect(snippet).toContain('x');
  });
});
