/**
 * A windowed list (issue 28 item 5): a list of any length whose DOM holds only the items within the viewport (plus a
 * margin above and below), positioned inside a box as tall as the whole list, so the page scrolls as if every item
 * were there. Item heights are given, not measured (each kind of item has one fixed height, which the stylesheet
 * keeps), so the offset of every item is known before any is drawn and scrolling never jumps. It follows the
 * window's scrolling: the list is part of the page, not a scroll box of its own.
 */
import type { ComponentChildren, JSX } from 'preact';
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';

/** How far beyond the viewport items are drawn, in pixels (keyboard focus and fast scrolling find items there). */
const MARGIN_PX = 600;

/** What a {@link VirtualList} shows. */
export interface VirtualListProps {
  /** How many items the list has. */
  readonly count: number;
  /** The height of item `index`, in CSS pixels. */
  readonly heightOf: (index: number) => number;
  /** Draws item `index`; `style` positions it (an `<li>` that takes the style). */
  readonly item: (index: number, style: { readonly top: string; readonly height: string }) => ComponentChildren;
  /** The list's accessible name. */
  readonly label: string;
  readonly class?: string;
}

/** The index of the first item whose bottom is below `y` (binary search over the ascending `offsets`). */
function firstBelow(offsets: Float64Array, y: number): number {
  let low = 0;
  let high = offsets.length - 1;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((offsets[middle + 1] ?? 0) <= y) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** The windowed list. */
export function VirtualList({ count, heightOf, item, label, class: className }: VirtualListProps): JSX.Element {
  // offsets[i] is the top of item i; offsets[count] the list's height.
  const offsets = useMemo(() => {
    const out = new Float64Array(count + 1);
    for (let index = 0; index < count; index += 1) out[index + 1] = (out[index] ?? 0) + heightOf(index);
    return out;
  }, [count, heightOf]);
  const box = useRef<HTMLUListElement>(null);
  const [range, setRange] = useState<{ top: number; bottom: number }>({ top: 0, bottom: 1200 });

  useLayoutEffect(() => {
    let frame = 0;
    const measure = (): void => {
      frame = 0;
      const element = box.current;
      if (element === null) return;
      const top = -element.getBoundingClientRect().top;
      setRange((was) => {
        const next = { top: top - MARGIN_PX, bottom: top + innerHeight + MARGIN_PX };
        return was.top === next.top && was.bottom === next.bottom ? was : next;
      });
    };
    const schedule = (): void => {
      if (frame === 0) frame = requestAnimationFrame(measure);
    };
    measure();
    addEventListener('scroll', schedule, { passive: true });
    addEventListener('resize', schedule);
    return () => {
      if (frame !== 0) cancelAnimationFrame(frame);
      removeEventListener('scroll', schedule);
      removeEventListener('resize', schedule);
    };
  }, []);
  // Content above the list may change its height (a search's results): measure again after each draw of the page.
  useEffect(() => {
    const element = box.current;
    if (element === null) return;
    const top = -element.getBoundingClientRect().top;
    setRange((was) =>
      was.top === top - MARGIN_PX && was.bottom === top + innerHeight + MARGIN_PX
        ? was
        : { top: top - MARGIN_PX, bottom: top + innerHeight + MARGIN_PX },
    );
  });

  const total = offsets[count] ?? 0;
  const drawn: ComponentChildren[] = [];
  if (count > 0 && range.bottom > 0 && range.top < total) {
    for (let index = firstBelow(offsets, Math.max(0, range.top)); index < count && (offsets[index] ?? 0) < range.bottom; index += 1) {
      drawn.push(item(index, { top: `${offsets[index] ?? 0}px`, height: `${heightOf(index)}px` }));
    }
  }
  return (
    <ul
      class={`virtual-list${className === undefined ? '' : ` ${className}`}`}
      aria-label={label}
      ref={box}
      style={{ height: `${total}px` }}
    >
      {drawn}
    </ul>
  );
}
