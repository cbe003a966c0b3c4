/**
 * A log text rendered as Markdown (issue 28), with each cited session's `@<label>` as a chip linking to that session.
 * Mentions are swapped for private-use placeholders before parsing, so a label's own Markdown characters (`_`, `*`)
 * never split a chip, then the placeholders in the sanitized DOM become chip links built with `textContent`.
 */
import type { JSX } from 'preact';
import { useLayoutEffect, useMemo, useRef } from 'preact/hooks';
import type { WebMention } from '../../../src/protocol/web/web-api.js';
import { hrefOf } from '../router.js';

const OPEN = '\uE000';
const CLOSE = '\uE001';
const PLACEHOLDER = /\uE000(\d+)\uE001/gu;
const NO_MENTIONS: readonly WebMention[] = [];

/**
 * The Markdown renderer, loaded on first use: markdown-it and DOMPurify are most of the page's script, and the
 * Sessions and Compose views never need them (docs/WEB.md has the sizes).
 */
let renderer: Promise<typeof import('./render-markdown.js')> | undefined;
function loadRenderer(): Promise<typeof import('./render-markdown.js')> {
  renderer ??= import('./render-markdown.js');
  return renderer;
}

/**
 * Resolves once the renderer is loaded, after the blocks already mounted have rendered (their callbacks were queued
 * first), so a view can scroll to a row whose height Markdown changes.
 */
export async function markdownReady(): Promise<void> {
  await loadRenderer();
}

/** A chip linking to its session: `@<label>`, the canonical mention as its title. */
function chipLink(mention: WebMention): HTMLAnchorElement {
  const chip = document.createElement('a');
  chip.className = 'chip';
  chip.href = hrefOf({ view: 'session', sessionId: mention.sessionId });
  chip.title = mention.mention;
  chip.dataset['sessionId'] = mention.sessionId;
  chip.textContent = `@${mention.label}`;
  return chip;
}

/**
 * The source with each mention's first `@<label>` (in order, each after the last) replaced by a placeholder.
 *
 * @returns the marked source and the mentions not found in it
 */
function markMentions(text: string, mentions: readonly WebMention[]): { source: string; unplaced: WebMention[] } {
  // A log's own private-use placeholders would otherwise be taken for chips.
  let rest = text.replace(/[\uE000\uE001]/gu, '\uFFFD');
  let source = '';
  const unplaced: WebMention[] = [];
  mentions.forEach((mention, index) => {
    const shown = `@${mention.label}`;
    const at = rest.indexOf(shown);
    if (at < 0) {
      unplaced.push(mention);
      return;
    }
    source += `${rest.slice(0, at)}${OPEN}${index}${CLOSE}`;
    rest = rest.slice(at + shown.length);
  });
  return { source: source + rest, unplaced };
}

/** Replaces the placeholders in the fragment's text nodes by chip links. */
function placeChips(fragment: DocumentFragment, mentions: readonly WebMention[]): void {
  const walker = document.createTreeWalker(fragment, NodeFilter.SHOW_TEXT);
  const texts: Text[] = [];
  for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) if (node.nodeValue?.includes(OPEN)) texts.push(node as Text);
  for (const node of texts) {
    const value = node.nodeValue ?? '';
    const parts: (string | Node)[] = [];
    let at = 0;
    for (const match of value.matchAll(PLACEHOLDER)) {
      const mention = mentions[Number(match[1])];
      parts.push(value.slice(at, match.index));
      parts.push(mention === undefined ? '' : chipLink(mention));
      at = match.index + match[0].length;
    }
    parts.push(value.slice(at));
    node.replaceWith(...parts);
  }
}

/** Props of {@link MarkdownText}. */
export interface MarkdownTextProps {
  /** The Markdown text. */
  readonly text: string;
  /** Sessions it cites, shown as chips where their `@<label>` is, else after the text. */
  readonly mentions?: readonly WebMention[];
  /** Extra classes of the rendered block. */
  readonly class?: string;
}

/** Markdown text with its chips; the rendered block is `.markdown` plus `class`. */
export function MarkdownText({ text, mentions = NO_MENTIONS, class: extra }: MarkdownTextProps): JSX.Element {
  const ref = useRef<HTMLDivElement>(null);
  const { source, unplaced } = useMemo(() => markMentions(text, mentions), [text, mentions]);
  useLayoutEffect(() => {
    let current = true;
    loadRenderer().then(({ renderMarkdown }) => {
      const box = ref.current;
      if (!current || box === null) return;
      const fragment = renderMarkdown(source);
      placeChips(fragment, mentions);
      box.replaceChildren(fragment);
      box.dataset['rendered'] = 'true';
    });
    return () => {
      current = false;
    };
  }, [source, mentions]);
  return (
    <>
      <div ref={ref} class={extra === undefined ? 'markdown' : `markdown ${extra}`} />
      {unplaced.length > 0 ? (
        <p class="chips">
          {unplaced.map((mention) => (
            <a
              class="chip"
              key={mention.sessionId}
              href={hrefOf({ view: 'session', sessionId: mention.sessionId })}
              title={mention.mention}
              data-session-id={mention.sessionId}
            >
              @{mention.label}
            </a>
          ))}
        </p>
      ) : null}
    </>
  );
}
