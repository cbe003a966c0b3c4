// Writes src/main/engine/fleet/fts5-unicode-tables.ts: what SQLite's FTS5 tokenizers do with every code point, read
// from SQLite itself (better-sqlite3's build), so the fleet's JavaScript tokenizer (phrase-tokens.ts) is the search
// index's own tokenizer and not a guess at it. For `unicode61 remove_diacritics 2`: whether a code point starts a
// token (letter, digit, private use), only continues one (a diacritic), or separates; and what it folds to (lower
// case, diacritics removed, or nothing). For `trigram remove_diacritics 1`: what it folds to (nothing: dropped).
// Usage: node scripts/fts5-unicode-tables.mjs (after npm ci). The test fts5-tokenizer-oracle.test.ts checks the
// table against the installed SQLite, code point by code point.
import { createRequire } from 'node:module';
import { writeFileSync } from 'node:fs';

const require = createRequire(import.meta.url);
const Database = require('better-sqlite3');

const LAST = 0x10ffff;
const CHUNK = 4096;
const codePoints = [];
// Surrogates cannot be UTF-8: a lone one reaches SQLite as U+FFFD, so the tokenizer replaces them first.
for (let cp = 0; cp <= LAST; cp++) if (cp < 0xd800 || cp > 0xdfff) codePoints.push(cp);

const db = new Database(':memory:');
db.exec(`CREATE VIRTUAL TABLE u USING fts5(body, tokenize = 'unicode61 remove_diacritics 2');
CREATE VIRTUAL TABLE uv USING fts5vocab(u, instance);
CREATE VIRTUAL TABLE t USING fts5(body, tokenize = 'trigram remove_diacritics 1');
CREATE VIRTUAL TABLE tv USING fts5vocab(t, instance);`);
const version = db.prepare('SELECT sqlite_version() AS v').get().v;

/** The tokens SQLite made of `text` under table `name`, in order. */
function tokensOf(name, text) {
  db.prepare(`DELETE FROM ${name}`).run();
  db.prepare(`INSERT INTO ${name} (rowid, body) VALUES (1, ?)`).run(text);
  return db
    .prepare(`SELECT term FROM ${name}v WHERE doc = 1 ORDER BY offset`)
    .all()
    .map((row) => row.term);
}

// Classes: 0 separator, 1 starts a token, 2 only continues one.
const classes = new Map();
const fold61 = new Map();
const foldTrigram = new Map();
let ambiguous = 0;
for (let start = 0; start < codePoints.length; start += CHUNK) {
  const chunk = codePoints.slice(start, start + CHUNK);
  // Per code point c: "xcx" (one token when c joins a token, two when it separates) and "cx" (c alone starts one?).
  const tokens = tokensOf('u', chunk.map((cp) => `x${String.fromCodePoint(cp)}x ${String.fromCodePoint(cp)}x`).join(' '));
  let at = 0;
  for (const cp of chunk) {
    const first = tokens[at];
    if (first === 'x') {
      classes.set(cp, 0);
      at += 3;
      continue;
    }
    const folded = first.slice(1, -1);
    const second = tokens[at + 1];
    if (folded === '') ambiguous += 1;
    classes.set(cp, folded !== '' && second === `${folded}x` ? 1 : 2);
    if (folded !== String.fromCodePoint(cp)) fold61.set(cp, folded === '' ? 0 : folded.codePointAt(0));
    at += 2;
  }
  if (at !== tokens.length) throw new Error(`unicode61 probe out of step at chunk ${start}`);
  // Trigram: "acb" per code point, one run; the folded text is rebuilt from the overlapping trigrams.
  const trigrams = tokensOf('t', chunk.map((cp) => `a${String.fromCodePoint(cp)}b`).join(''));
  const text = [...trigrams[0], ...trigrams.slice(1).map((trigram) => [...trigram][2])];
  let i = 0;
  for (const cp of chunk) {
    if (text[i] !== 'a') throw new Error(`trigram probe out of step at ${cp}`);
    const dropped = text[i + 1] === 'b' && (i + 2 === text.length || text[i + 2] === 'a');
    const folded = dropped ? 0 : text[i + 1].codePointAt(0);
    if (!dropped && text[i + 2] !== 'b') throw new Error(`trigram probe out of step at ${cp}`);
    if (folded !== cp) foldTrigram.set(cp, folded);
    i += dropped ? 2 : 3;
  }
}
if (ambiguous > 0) console.warn(`${ambiguous} token characters fold to nothing (classed as continuing)`);

/** Class runs: "start:class" for every change, base 36. */
function classRuns() {
  const runs = [];
  let previous = -1;
  for (let cp = 0; cp <= LAST; cp++) {
    const kind = classes.get(cp) ?? 0;
    if (kind !== previous) runs.push(`${cp.toString(36)}:${kind}`);
    previous = kind;
  }
  return runs.join(',');
}

/** Fold runs: "start:count:step:delta" (delta "z": folds to nothing), base 36, over code points in order. */
function foldRuns(map) {
  const entries = [...map.entries()].sort((a, b) => a[0] - b[0]);
  const runs = [];
  let run;
  for (const [cp, target] of entries) {
    const delta = target === 0 ? 'z' : target - cp;
    if (run !== undefined && run.delta === delta) {
      // A second entry sets the run's step (1 for blocks, 2 for alternating upper/lower pairs); later ones extend it.
      if (run.count === 1 && (cp - run.start === 1 || cp - run.start === 2)) {
        run.step = cp - run.start;
        run.count = 2;
        continue;
      }
      if (run.count > 1 && cp === run.start + run.count * run.step) {
        run.count += 1;
        continue;
      }
    }
    if (run !== undefined) runs.push(run);
    run = { start: cp, count: 1, step: 1, delta };
  }
  if (run !== undefined) runs.push(run);
  const num = (value) => (value < 0 ? `-${(-value).toString(36)}` : value.toString(36));
  return runs.map((r) => `${r.start.toString(36)}:${r.count.toString(36)}:${r.step}:${r.delta === 'z' ? 'z' : num(r.delta)}`).join(',');
}

const out = `/**
 * What SQLite ${version}'s FTS5 tokenizers do with each code point, read from SQLite itself by
 * \`scripts/fts5-unicode-tables.mjs\` (generated: do not edit; \`fts5-tokenizer-oracle.test.ts\` checks it against the
 * installed SQLite code point by code point). Runs in base 36.
 */

/** The SQLite version the tables were read from. */
export const FTS5_TABLES_SQLITE_VERSION = '${version}';

/** \`unicode61\`'s classes as "start:class" runs: 0 separates, 1 starts (or continues) a token, 2 only continues one. */
export const UNICODE61_CLASS_RUNS = '${classRuns()}';

/** \`unicode61 remove_diacritics 2\`'s fold of token characters as "start:count:step:delta" runs ("z": removed). */
export const UNICODE61_FOLD_RUNS = '${foldRuns(fold61)}';

/** \`trigram remove_diacritics 1\`'s fold of every code point, as the runs above ("z": dropped from the text). */
export const TRIGRAM_FOLD_RUNS = '${foldRuns(foldTrigram)}';
`;
writeFileSync(new URL('../src/main/engine/fleet/fts5-unicode-tables.ts', import.meta.url), out);
console.log(`SQLite ${version}: ${classes.size} code points, ${fold61.size} unicode61 folds, ${foldTrigram.size} trigram folds`);
