// Issue 29 item 3 (fleet search), test (e): the JavaScript tokenizers the fleet's PostgreSQL search matches with
// (`fleet/fts5-tokens.ts`) against SQLite's FTS5 itself — the tokenizers the local search index is built with
// (`unicode61 remove_diacritics 2`, `trigram remove_diacritics 1`). SQLite is the oracle: its tokens come from an
// fts5vocab table, its matches from MATCH. Every code point in context, random and hostile strings (accents,
// combining marks, mixed scripts, digits, punctuation, emoji, NUL, lone surrogates, private use, over-long tokens).
import { createRequire } from 'node:module';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { DatabaseConstructor } from '../../../../src/workers/search/search-database.js';
import { phraseLiteral } from '../../../../src/main/engine/search/search-service.js';
import { tokenString, trigramFold, trigramPhraseUsable, unicode61Tokens } from '../../../../src/main/engine/fleet/fts5-tokens.js';

const Sqlite = createRequire(import.meta.url)('better-sqlite3') as DatabaseConstructor;
const db = new Sqlite(':memory:');
db.exec(`CREATE VIRTUAL TABLE u USING fts5(body, tokenize = 'unicode61 remove_diacritics 2');
CREATE VIRTUAL TABLE uv USING fts5vocab(u, instance);
CREATE VIRTUAL TABLE t USING fts5(body, tokenize = 'trigram remove_diacritics 1');
CREATE VIRTUAL TABLE tv USING fts5vocab(t, instance);`);
afterAll(() => db.close());

/** SQLite's tokens of `text` in table `name` (`u`: unicode61, `t`: trigram), in order. */
function sqliteTokens(name: 'u' | 't', text: string): string[] {
  db.prepare(`DELETE FROM ${name}`).run();
  db.prepare(`INSERT INTO ${name} (rowid, body) VALUES (1, ?)`).run(text);
  return (db.prepare(`SELECT term FROM ${name}v WHERE doc = 1 ORDER BY offset`).all() as { term: string }[]).map((row) => row.term);
}

/** Whether SQLite's MATCH of `phrase` (as the search service quotes it) finds `text` in table `name`. */
function sqliteMatches(name: 'u' | 't', text: string, phrase: string): boolean {
  db.prepare(`DELETE FROM ${name}`).run();
  db.prepare(`INSERT INTO ${name} (rowid, body) VALUES (1, ?)`).run(text);
  return db.prepare(`SELECT rowid FROM ${name} WHERE ${name} MATCH ?`).all(phraseLiteral(phrase)).length === 1;
}

/** The trigrams of folded text, as FTS5 would list them (none under three code points). */
function trigramsOf(text: string): string[] {
  const points = [...trigramFold(text).text];
  const out: string[] = [];
  for (let index = 0; index + 3 <= points.length; index++) out.push(points.slice(index, index + 3).join(''));
  return out;
}

/** The fleet's match rule: the phrase's token string inside the document's (unicode61), or folded substring (trigram). */
function fleetMatches(name: 'u' | 't', text: string, phrase: string): boolean {
  const literal = phrase.replaceAll('\u0000', ' ');
  if (name === 't') {
    const folded = trigramFold(literal).text;
    return trigramPhraseUsable(folded) && trigramFold(text).text.includes(folded);
  }
  const tokens = unicode61Tokens(literal);
  return tokens.length > 0 && tokenString(unicode61Tokens(text)).includes(tokenString(tokens));
}

const HOSTILE = [
  'café',
  'CAFÉ',
  'Cafe\u0301',
  'e\u0301\u0302',
  '\u0301x',
  'ǅemal',
  'İstanbul',
  'ﬁne',
  'Straße',
  'ΣΊΣΥΦΟΣ',
  'ß',
  'Ⅻ',
  '①②',
  '٣٤',
  '½',
  '東京都',
  'ｶﾀｶﾅ',
  'ＡＢＣ',
  '한국어',
  'ไทย',
  '🙂',
  '👍🏽',
  '𝔘𝔫𝔦',
  '𐐀𐐨',
  '\u0000',
  '\ud800',
  '\udc00x',
  '\ue000',
  '\uffff',
  '_',
  "'",
  '"',
  '-',
  '.',
  '\n',
  '\t',
  '42',
  'x1',
  'cartTotal',
];
const pieceArb = fc.oneof(
  fc.constantFrom(...HOSTILE),
  fc.string({ unit: 'binary', maxLength: 6 }),
  fc.string({ unit: 'grapheme', maxLength: 6 }),
  fc.constantFrom(' ', ', ', '. '),
);
const textArb = fc.array(pieceArb, { maxLength: 12 }).map((pieces) => pieces.join(''));

describe('the fleet tokenizers against SQLite FTS5', () => {
  it('every code point, alone, inside a token, starting one and between two, tokenizes as unicode61 does', () => {
    const chunk: string[] = [];
    const check = (): void => {
      const text = chunk.join(' ');
      expect(unicode61Tokens(text).map((token) => token.text)).toEqual(sqliteTokens('u', text));
      chunk.length = 0;
    };
    for (let cp = 0; cp <= 0x10ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const c = String.fromCodePoint(cp);
      chunk.push(`x${c}x ${c}x ${c} ${c}${c}`);
      if (chunk.length === 2048) check();
    }
    check();
  }, 120_000);

  it('every code point folds as the trigram tokenizer folds it', () => {
    const chunk: string[] = [];
    const check = (): void => {
      const text = chunk.join('');
      expect(trigramsOf(text)).toEqual(sqliteTokens('t', text));
      chunk.length = 0;
    };
    for (let cp = 0; cp <= 0x10ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      chunk.push(`a${String.fromCodePoint(cp)}b`);
      if (chunk.length === 2048) check();
    }
    check();
  }, 120_000);

  it('random and hostile strings: the same tokens, the same trigrams', () => {
    fc.assert(
      fc.property(textArb, (text) => {
        expect(unicode61Tokens(text).map((token) => token.text)).toEqual(sqliteTokens('u', text));
        expect(trigramsOf(text)).toEqual(sqliteTokens('t', text));
      }),
      { numRuns: 3000 },
    );
  });

  it('token ranges cover the input they fold from', () => {
    fc.assert(
      fc.property(textArb, (text) => {
        for (const token of unicode61Tokens(text)) {
          // The covered text tokenizes to exactly that one token.
          expect(unicode61Tokens(text.slice(token.start, token.end)).map((covered) => covered.text)).toEqual([token.text]);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('random phrases (pieces of the text, case and accent variants, hostile ones) match exactly where MATCH does', () => {
    const caseArb = fc.constantFrom(
      (s: string) => s,
      (s: string) => s.toUpperCase(),
      (s: string) => s.toLowerCase(),
      (s: string) => s.normalize('NFD'),
      (s: string) => s.normalize('NFC'),
    );
    fc.assert(
      fc.property(textArb, fc.nat(), fc.nat(), caseArb, textArb, fc.boolean(), (text, a, b, variant, other, own) => {
        const from = text.length === 0 ? 0 : a % text.length;
        const phrase = own ? variant(text.slice(from, from + 1 + (b % 24))) : other;
        if (phrase.trim() === '') return;
        expect(fleetMatches('u', text, phrase)).toBe(sqliteMatches('u', text, phrase));
        expect(fleetMatches('t', text, phrase)).toBe(sqliteMatches('t', text, phrase));
      }),
      { numRuns: 3000 },
    );
  });

  it('a token longer than FTS5 keeps is cut as SQLite cuts it', () => {
    const long = `${'a'.repeat(40_000)} z`;
    for (const phrase of [`${'a'.repeat(32_768)}b z`, `${'a'.repeat(32_767)} z`, `${'a'.repeat(32_768)} z`]) {
      expect(fleetMatches('u', long, phrase)).toBe(sqliteMatches('u', long, phrase));
    }
    const wide = `${'Ж'.repeat(20_000)} z`;
    for (const phrase of [`${'ж'.repeat(16_384)} z`, `${'ж'.repeat(16_383)} z`, `${'ж'.repeat(16_390)} z`]) {
      expect(fleetMatches('u', wide, phrase)).toBe(sqliteMatches('u', wide, phrase));
    }
  });
});
