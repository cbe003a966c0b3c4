/**
 * The local search index's two tokenizers in JavaScript (docs/SEARCH.md §5), so the fleet's PostgreSQL search
 * matches exactly what each host's SQLite index matches (docs/FLEET.md §7):
 *
 * - `unicode61 remove_diacritics 2`: a token starts at a token character (letters, digits, private use, in SQLite's
 *   own classification) and runs over token characters and diacritics; each code point is folded (lower case,
 *   diacritics removed, some to nothing). A phrase matches consecutive tokens.
 * - `trigram remove_diacritics 1`: every code point folded (those that fold to nothing dropped); a phrase of at least
 *   three folded code points matches where it is a substring.
 *
 * The classes and folds are SQLite's, read from it code point by code point (`fts5-unicode-tables.ts`, checked by a
 * test against the installed SQLite). Two rules come from how text reaches SQLite: a lone surrogate is U+FFFD there
 * (better-sqlite3 writes UTF-8), and a token longer than 32,768 UTF-8 bytes is cut to that length (FTS5's maximum
 * token size; cut here at the last whole code point, which differs from SQLite only when the cut falls inside one).
 */
import { TRIGRAM_FOLD_RUNS, UNICODE61_CLASS_RUNS, UNICODE61_FOLD_RUNS } from './fts5-unicode-tables.js';

/** One unicode61 token: its folded text and the `[start, end)` UTF-16 range of the input it came from. */
export interface Fts5Token {
  readonly text: string;
  readonly start: number;
  readonly end: number;
}

/** FTS5's longest token in UTF-8 bytes (`FTS5_MAX_TOKEN_SIZE`). */
const MAX_TOKEN_BYTES = 32_768;

/** Code points 0 separates, 1 starts a token, 2 only continues one. */
let classes: Uint8Array | undefined;
let unicode61Folds: Map<number, number> | undefined;
let trigramFolds: Map<number, number> | undefined;

function classTable(): Uint8Array {
  if (classes !== undefined) return classes;
  const table = new Uint8Array(0x110000);
  const runs = UNICODE61_CLASS_RUNS.split(',').map((run) => run.split(':').map((part) => Number.parseInt(part, 36)) as [number, number]);
  runs.forEach(([start, kind], index) => {
    table.fill(kind, start, runs[index + 1]?.[0] ?? table.length);
  });
  classes = table;
  return table;
}

/** A fold table: code point → folded code point (0: folds to nothing); absent code points fold to themselves. */
function foldTable(runs: string): Map<number, number> {
  const folds = new Map<number, number>();
  for (const run of runs.split(',')) {
    const [start, count, step, delta] = run.split(':') as [string, string, string, string];
    const first = Number.parseInt(start, 36);
    const n = Number.parseInt(count, 36);
    const by = Number(step);
    for (let index = 0; index < n; index++) {
      const cp = first + index * by;
      folds.set(cp, delta === 'z' ? 0 : cp + Number.parseInt(delta, 36));
    }
  }
  return folds;
}

/** The text SQLite receives: lone surrogates become U+FFFD (better-sqlite3 writes UTF-8). */
export function asStoredText(text: string): string {
  // `String.prototype.toWellFormed` (ES2024; present on Node 20, absent from this project's ES2023 lib types).
  return (text as unknown as { toWellFormed(): string }).toWellFormed();
}

function utf8Length(cp: number): number {
  return cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
}

/**
 * The unicode61 tokens of `text`, in order, with the ranges they cover in `text` (lone surrogates count as the
 * U+FFFD SQLite sees, one UTF-16 unit each, so ranges are ranges of `text` itself).
 */
export function unicode61Tokens(text: string): Fts5Token[] {
  const table = classTable();
  unicode61Folds ??= foldTable(UNICODE61_FOLD_RUNS);
  const folds = unicode61Folds;
  const stored = asStoredText(text);
  const tokens: Fts5Token[] = [];
  let index = 0;
  while (index < stored.length) {
    const cp = stored.codePointAt(index) as number;
    if (table[cp] !== 1) {
      index += cp > 0xffff ? 2 : 1;
      continue;
    }
    const start = index;
    let folded = '';
    let bytes = 0;
    let full = false;
    while (index < stored.length) {
      const next = stored.codePointAt(index) as number;
      if (table[next] === 0) break;
      index += next > 0xffff ? 2 : 1;
      const target = folds.get(next) ?? next;
      if (target === 0 || full) continue;
      const size = utf8Length(target);
      if (bytes + size > MAX_TOKEN_BYTES) {
        full = true;
        continue;
      }
      bytes += size;
      folded += String.fromCodePoint(target);
    }
    tokens.push({ text: folded, start, end: index });
  }
  return tokens;
}

/**
 * A document's or phrase's tokens as one string, each followed and preceded by a space (` a b c `; a single space for
 * none), so a phrase matches a document exactly when ` p1 p2 ` is a substring of the document's string. Tokens hold
 * no space (a space is a separator), and an empty token (none exist in SQLite's tables, but the rule would hold) keeps
 * its place as two spaces.
 */
export function tokenString(tokens: readonly Fts5Token[]): string {
  return tokens.length === 0 ? ' ' : ` ${tokens.map((token) => token.text).join(' ')} `;
}

/** Text folded as the trigram tokenizer folds it, with where each folded UTF-16 unit came from in the input. */
export interface TrigramFolded {
  readonly text: string;
  /** For each UTF-16 unit of `text`: the input's index of the code point it folds from. */
  readonly from: readonly number[];
  /** For each UTF-16 unit of `text`: the input's index after that code point. */
  readonly to: readonly number[];
}

/** `text` folded by the trigram tokenizer (lower case, diacritics removed, code points that fold to nothing dropped). */
export function trigramFold(text: string): TrigramFolded {
  trigramFolds ??= foldTable(TRIGRAM_FOLD_RUNS);
  const folds = trigramFolds;
  const stored = asStoredText(text);
  let out = '';
  const from: number[] = [];
  const to: number[] = [];
  let index = 0;
  while (index < stored.length) {
    const cp = stored.codePointAt(index) as number;
    const width = cp > 0xffff ? 2 : 1;
    const target = folds.get(cp) ?? cp;
    if (target !== 0) {
      const piece = String.fromCodePoint(target);
      out += piece;
      for (let unit = 0; unit < piece.length; unit++) {
        from.push(index);
        to.push(index + width);
      }
    }
    index += width;
  }
  return { text: out, from, to };
}

/** Whether a folded trigram phrase can match at all: FTS5 needs three code points for one trigram. */
export function trigramPhraseUsable(folded: string): boolean {
  let count = 0;
  for (const _ of folded) if (++count >= 3) return true;
  return false;
}
