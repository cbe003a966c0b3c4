/** A search snippet with its matched ranges marked, rendered as text (never as HTML). */
import type { JSX } from 'preact';
import type { HighlightRange } from '../../../src/protocol/search-types.js';

/** The snippet with `<mark>` over each `[start, end)` range (ranges sorted, overlaps merged by skipping). */
export function Highlighted({ text, ranges }: { text: string; ranges: readonly HighlightRange[] }): JSX.Element {
  const parts: (string | JSX.Element)[] = [];
  let at = 0;
  for (const [start, end] of [...ranges].sort((a, b) => a[0] - b[0])) {
    if (start < at || end <= start) continue;
    parts.push(text.slice(at, start));
    parts.push(<mark key={start}>{text.slice(start, end)}</mark>);
    at = end;
  }
  parts.push(text.slice(at));
  return <>{parts}</>;
}
