/**
 * How the fleet's search matches a phrase (docs/FLEET.md §7), exactly as the local SQLite index does (docs/SEARCH.md
 * §5), in a form PostgreSQL evaluates with `LIKE` on text under a `pg_trgm` index:
 *
 * - each document is published with its unicode61 token string (` tok1 tok2 `) and, when its text has CJK
 *   characters, its trigram-folded text (`fts5-tokens.ts`);
 * - a phrase without CJK matches a document whose token string contains the phrase's (consecutive tokens); one with
 *   CJK matches a document whose folded text contains the phrase's folded text (at least three code points, as a
 *   trigram needs). A phrase with no token matches nothing, as in FTS5.
 *
 * Ranking (documented, computed by the server; the live sessions' documents by the same formula here): a document's
 * score is BM25's term weight of the phrase without its IDF (one phrase per query: the IDF orders nothing) and with a
 * fixed average length of {@link AVERAGE_TOKENS} tokens, `tf·(k1+1) / (tf + k1·(1 − b + b·dl/avgdl))`, k1 = 1.2,
 * b = 0.75, tf the phrase's non-overlapping occurrences, dl the document's tokens. A session scores its best document.
 */
import type { HighlightRange } from '../../../protocol/search-types.js';
import type { MarkedText } from '../../../workers/search/snippet.js';
import { CJK_PATTERN } from '../../../workers/search/search-sync.js';
import { tokenString, trigramFold, trigramPhraseUsable, unicode61Tokens } from './fts5-tokens.js';

/** The average document length the ranking assumes, in tokens. */
export const AVERAGE_TOKENS = 64;

/** What a document is matched and ranked by, as published. */
export interface DocumentKeys {
  /** The unicode61 token string. */
  readonly tokens: string;
  readonly tokenCount: number;
  /** The trigram-folded text, for text with CJK characters only (the local index's `docs_cjk` holds only those). */
  readonly folded: string | null;
}

/** The keys of one document's text. */
export function documentKeys(text: string): DocumentKeys {
  const tokens = unicode61Tokens(text);
  return { tokens: tokenString(tokens), tokenCount: tokens.length, folded: CJK_PATTERN.test(text) ? trigramFold(text).text : null };
}

/** What a phrase is looked for as: in the token strings or the folded texts, or nothing (it can match nothing). */
export interface PhraseNeedle {
  readonly cjk: boolean;
  /** The text to find, or `undefined` when the phrase matches no document. */
  readonly needle: string | undefined;
}

/**
 * The needle of a phrase as FTS5 tokenizes it (the search plan's literal without its quotes: NUL already a space).
 * @param cjk - the plan's choice of table (a phrase with CJK characters).
 */
export function phraseNeedle(phrase: string, cjk: boolean): PhraseNeedle {
  if (cjk) {
    const folded = trigramFold(phrase).text;
    return { cjk, needle: trigramPhraseUsable(folded) ? folded : undefined };
  }
  const tokens = unicode61Tokens(phrase);
  return { cjk, needle: tokens.length === 0 ? undefined : tokenString(tokens) };
}

/** The phrase of an FTS5 string literal (`"…"`, inner quotes doubled), as the search service writes it. */
export function phraseOfLiteral(literal: string): string {
  return literal.slice(1, -1).replaceAll('""', '"');
}

/** Non-overlapping occurrences of `needle` in `haystack`, left to right (what `replace` removes in SQL). */
export function occurrences(haystack: string, needle: string): number {
  let count = 0;
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + needle.length)) count += 1;
  return count;
}

/** A document's score: see the file comment. The SQL of `fleet-search.ts` computes the same expression in the same order. */
export function documentScore(tf: number, tokenCount: number): number {
  return (tf * 2.2) / (tf + 1.2 * (0.25 + (0.75 * tokenCount) / AVERAGE_TOKENS));
}

/**
 * The phrase's non-overlapping occurrences in a document row `d`, in SQL, with the needle as parameter `needle`: the
 * bytes `replace` removes over the needle's bytes (byte lengths: no character count over the whole text, and the same
 * quotient, since every removed occurrence is the needle's bytes).
 */
export function occurrencesSql(column: 'tokens' | 'folded', needle: string): string {
  return `((octet_length(d.${column}) - octet_length(replace(d.${column}, ${needle}, ''))) / octet_length(${needle}))::float8`;
}

/**
 * The score expression in SQL over columns `tf` (from {@link occurrencesSql}, computed once in a subquery the planner
 * may not flatten: inlined, it was evaluated twice, a second `replace` over every matching text) and `token_count`.
 */
export function scoreSql(): string {
  return `(tf * 2.2::float8) / (tf + 1.2::float8 * (0.25::float8 + (0.75::float8 * token_count::float8) / ${AVERAGE_TOKENS}::float8))`;
}

/** Merges ranges that overlap (FTS5's `highlight()` marks overlapping phrase instances as one). */
function merged(ranges: Array<[number, number]>): HighlightRange[] {
  ranges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const out: Array<[number, number]> = [];
  for (const range of ranges) {
    const last = out.at(-1);
    if (last !== undefined && range[0] < last[1]) last[1] = Math.max(last[1], range[1]);
    else out.push([range[0], range[1]]);
  }
  return out;
}

/**
 * A document's text with where the phrase matches in it, for `buildSnippet` (the local index's snippet rules): the
 * tokens of each phrase instance (unicode61), or the code points each folded occurrence comes from (trigram).
 */
export function markedMatches(text: string, needle: PhraseNeedle): MarkedText {
  const ranges: Array<[number, number]> = [];
  if (needle.needle !== undefined && needle.cjk) {
    const folded = trigramFold(text);
    const length = needle.needle.length;
    for (let at = folded.text.indexOf(needle.needle); at !== -1; at = folded.text.indexOf(needle.needle, at + 1)) {
      ranges.push([folded.from[at] as number, folded.to[at + length - 1] as number]);
    }
  } else if (needle.needle !== undefined) {
    const phrase = needle.needle.slice(1, -1).split(' ');
    const tokens = unicode61Tokens(text);
    for (let start = 0; start + phrase.length <= tokens.length; start++) {
      if (phrase.every((token, offset) => tokens[start + offset]?.text === token)) {
        ranges.push([(tokens[start] as { start: number }).start, (tokens[start + phrase.length - 1] as { end: number }).end]);
      }
    }
  }
  return { text, matches: merged(ranges) };
}
