/**
 * When the `@` picker is open and what it looks up (issue 18, Compose): an `@` at the start of the text or after
 * whitespace opens it; the query runs from just after that `@` to the caret and holds no whitespace; an `@` that is a
 * chip's own never does. While the open picker still lists matches, its query goes on across spaces (issue 28:
 * `@invoice csv` is one query, as `sessions --query "invoice csv"` is), until a line ends or nothing matches.
 * An open quote, `@"…` up to the caret with no closing `"`, is a path with spaces (docs/WEB.md "The @ source"): only
 * files are searched for it.
 */
import type { Draft } from './chip-model.js';

/** The `@query` being typed: where its `@` is and the query text. */
export interface MentionQuery {
  /** Index of the `@`. */
  readonly at: number;
  /** From just after the `@` (after `@"` when quoted) to the caret. */
  readonly query: string;
  /** The token is an open `@"…`: a path, so only files are looked up. */
  readonly quoted: boolean;
}

// An open quoted path at the end of the text before the caret: `@"` after whitespace (or at the start), no `"` since.
const OPEN_QUOTE = /(?:^|\s)@"([^"\r\n]*)$/u;

/**
 * The `@query` the caret is in, if any.
 *
 * @param draft the draft
 * @param caret a collapsed caret (`undefined` for a selection: no picker while text is selected)
 */
export function mentionQueryAt(draft: Draft, caret: number | undefined): MentionQuery | undefined {
  if (caret === undefined) return undefined;
  const { text } = draft;
  const open = OPEN_QUOTE.exec(text.slice(0, caret));
  if (open !== null) {
    const query = open[1] ?? '';
    const start = caret - query.length - 2;
    if (!draft.chips.some((chip) => chip.start < caret && chip.end > start)) return { at: start, query, quoted: true };
  }
  let at = caret - 1;
  while (at >= 0 && !/\s/u.test(text[at] ?? '')) at -= 1;
  // `at` is now the whitespace before the token (or -1): the token is [at + 1, caret).
  const start = at + 1;
  if (text[start] !== '@' || start >= caret) return undefined;
  if (draft.chips.some((chip) => chip.start < caret && chip.end > start)) return undefined;
  return { at: start, query: text.slice(start + 1, caret), quoted: false };
}

/**
 * The open picker's query continued across spaces: from its `@` to the caret, on one line, outside every chip.
 *
 * @param draft the draft
 * @param caret a collapsed caret
 * @param at the `@` of the open picker's query
 */
export function continuedMentionQuery(draft: Draft, caret: number | undefined, at: number): MentionQuery | undefined {
  if (caret === undefined || caret <= at || draft.text[at] !== '@') return undefined;
  const query = draft.text.slice(at + 1, caret);
  if (/[\r\n]/u.test(query) || query.trim() === '') return undefined;
  if (draft.chips.some((chip) => chip.start < caret && chip.end > at)) return undefined;
  return { at, query, quoted: false };
}
