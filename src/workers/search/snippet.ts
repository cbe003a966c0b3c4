/**
 * Snippets of a search hit (issue 17 item 3): a bounded excerpt of a document around its first match, control and
 * invisible characters escaped as discovery escapes labels (`\u{XXXX}`; line breaks and tabs become one space), and
 * the `[start, end)` UTF-16 ranges of every match inside the excerpt. The matches come from FTS5's `highlight()`
 * with markers that carry a random nonce, so a document can never forge one; the excerpt is cut on code points, so
 * a surrogate pair is never split.
 */
import { escapeDisplayText } from '../../protocol/uri/display-escape.js';
import type { HighlightRange } from '../../protocol/search-types.js';

/** The markers one query's `highlight()` wraps matches in. */
export interface HighlightMarkers {
  readonly open: string;
  readonly close: string;
}

/**
 * Markers no document contains in practice: private-use characters around a 96-bit random nonce.
 * @param nonce - random hex text (the worker draws it per query).
 */
export function highlightMarkers(nonce: string): HighlightMarkers {
  return { open: `\uE000${nonce}\uE001`, close: `\uE002${nonce}\uE003` };
}

/** A document's text with its matches as `[start, end)` ranges of that text. */
export interface MarkedText {
  readonly text: string;
  readonly matches: readonly HighlightRange[];
}

/**
 * Removes the markers of `highlighted`, returning the original text and where the matches were.
 * @param highlighted - the output of `highlight(table, column, open, close)`.
 * @param markers - the markers given to it.
 */
export function parseHighlighted(highlighted: string, markers: HighlightMarkers): MarkedText {
  let text = '';
  const matches: Array<[number, number]> = [];
  let at = 0;
  for (;;) {
    const open = highlighted.indexOf(markers.open, at);
    if (open === -1) break;
    const close = highlighted.indexOf(markers.close, open + markers.open.length);
    if (close === -1) break;
    text += highlighted.slice(at, open);
    const start = text.length;
    text += highlighted.slice(open + markers.open.length, close);
    matches.push([start, text.length]);
    at = close + markers.close.length;
  }
  text += highlighted.slice(at);
  return { text, matches };
}

/** One code point as the snippet shows it. */
function shown(character: string): string {
  if (character === '\n' || character === '\r' || character === '\t') return ' ';
  return escapeDisplayText(character);
}

/** The ellipsis at a cut end. */
const ELLIPSIS = '…';

/** A snippet and its highlights. */
export interface Snippet {
  readonly snippet: string;
  readonly highlights: readonly HighlightRange[];
}

/**
 * The excerpt of `marked` around its first match, at most `maxLength` UTF-16 units (ellipses included), with every
 * match that lies inside it highlighted (a match cut by an end is highlighted up to that end).
 * @param marked - the document text and its matches.
 * @param maxLength - the bound (config `search.snippetLength`, at least 16).
 */
export function buildSnippet(marked: MarkedText, maxLength: number): Snippet {
  const { text, matches } = marked;
  const first = matches[0] ?? [0, 0];
  // Context before the match: a third of the room that is left after the match itself.
  const before = Math.max(0, Math.floor((maxLength - (first[1] - first[0])) / 3));
  let start = first[0];
  let used = 0;
  while (start > 0 && used < before) {
    const code = text.charCodeAt(start - 1);
    const step = code >= 0xdc00 && code <= 0xdfff && start > 1 && isHigh(text.charCodeAt(start - 2)) ? 2 : 1;
    const piece = shown(text.slice(start - step, start));
    if (used + piece.length > before) break;
    used += piece.length;
    start -= step;
  }
  // The document starts inside the excerpt, else an ellipsis marks the cut.
  let out = start > 0 ? ELLIPSIS : '';
  const positions = new Map<number, number>();
  let index = start;
  while (index < text.length) {
    const step = isHigh(text.charCodeAt(index)) && index + 1 < text.length && isLow(text.charCodeAt(index + 1)) ? 2 : 1;
    const piece = shown(text.slice(index, index + step));
    const room = maxLength - (index + step < text.length ? ELLIPSIS.length : 0);
    if (out.length + piece.length > room) break;
    positions.set(index, out.length);
    out += piece;
    index += step;
  }
  const end = index;
  positions.set(end, out.length);
  if (end < text.length) out += ELLIPSIS;
  const highlights: HighlightRange[] = [];
  for (const [matchStart, matchEnd] of matches) {
    const from = Math.max(matchStart, start);
    const to = Math.min(matchEnd, end);
    if (from >= to) continue;
    const a = positions.get(from);
    const b = positions.get(to);
    // Match bounds are token bounds, never inside a surrogate pair; a bound that is not a code point start is skipped.
    if (a === undefined || b === undefined || a >= b) continue;
    highlights.push([a, b]);
  }
  return { snippet: out, highlights };
}

function isHigh(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLow(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
