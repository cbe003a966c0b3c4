// Issue 17, tests: on randomized corpora (raw and zstd) with compactions, appends, rewrites, deletions, and sessions
// attached live (their turns kept in memory, the host writing them out when it detaches them), the set
// of sessions every query finds equals a brute-force scan of the oracle's current texts with the same tokenizer
// rules (NFD, marks stripped, lower case, letter/digit runs, consecutive tokens); every highlight range of a hit
// covers text whose tokens are the phrase's, and reasoning text is never found.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type LocalSessionEngine } from '../../../../src/main/engine/assembly/create-engine.js';
import type { Compression } from '../../../../src/protocol/storage-paths.js';
import { initZstd } from '../../../../src/workers/decode/zstd-codec.js';
import { appendEvents, containsPhrase, CorpusSession, tokens, writeSession } from './search-corpus.js';
import { artifactPathOf } from '../../../../bench/support/long-session.js';

const RUNS = Number(process.env['SESSIONCTX_SOAK_RUNS'] ?? 10);
const WORDS = [
  'café',
  'CAFE',
  'Cafe',
  'naïve',
  'naive',
  'rounding',
  'cartTotal',
  'merge',
  'note',
  'Über',
  'uber',
  'señor',
  'OOM',
  'training',
  'crème',
  'brûlée',
  'x1',
  '42',
];
const SEPARATORS = [' ', ', ', '. ', '-', '\n', ' "', '" '];

const textArb = fc
  .array(fc.tuple(fc.constantFrom(...WORDS), fc.constantFrom(...SEPARATORS)), { minLength: 1, maxLength: 8 })
  .map((parts) => parts.map(([word, separator]) => word + separator).join(''));

type Action =
  | { readonly kind: 'append'; readonly session: number; readonly prompt: string; readonly answer: string }
  | { readonly kind: 'compact'; readonly session: number; readonly summary: string }
  | { readonly kind: 'rewrite'; readonly session: number; readonly prompt: string; readonly answer: string }
  | { readonly kind: 'delete'; readonly session: number }
  | { readonly kind: 'attach'; readonly session: number }
  | { readonly kind: 'detach'; readonly session: number };

const SESSIONS = 4;
const actionArb: fc.Arbitrary<Action> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({ kind: fc.constant('append' as const), session: fc.nat(SESSIONS - 1), prompt: textArb, answer: textArb }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('compact' as const), session: fc.nat(SESSIONS - 1), summary: textArb }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('rewrite' as const), session: fc.nat(SESSIONS - 1), prompt: textArb, answer: textArb }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), session: fc.nat(SESSIONS - 1) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('attach' as const), session: fc.nat(SESSIONS - 1) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('detach' as const), session: fc.nat(SESSIONS - 1) }) },
);

const phraseArb = fc.oneof(
  fc.constantFrom(...WORDS),
  fc.tuple(fc.constantFrom(...WORDS), fc.constantFrom(...WORDS)).map(([a, b]) => `${a} ${b}`),
  fc.constant('secretreasoning'),
);

/**
 * True when every token of a highlighted range lies inside an occurrence of the phrase within the range: one match,
 * or overlapping matches (FTS5 merges those into one range, e.g. "naive naive naive" for the phrase "naive naive").
 */
function coveredByPhrase(covered: readonly string[], phrase: readonly string[]): boolean {
  if (covered.length < phrase.length) return false;
  const inside = new Array<boolean>(covered.length).fill(false);
  for (let at = 0; at + phrase.length <= covered.length; at += 1) {
    if (phrase.every((token, index) => covered[at + index] === token)) inside.fill(true, at, at + phrase.length);
  }
  return inside.every(Boolean);
}

async function check(engine: LocalSessionEngine, live: Map<number, CorpusSession>, phrases: readonly string[]): Promise<void> {
  for (const phrase of phrases) {
    const page = await engine.searchSessions({ query: phrase, limit: 100 });
    const expected = [...live.values()]
      .filter((session) => session.currentDocs().some((doc) => containsPhrase(doc.text, phrase)))
      .map((session) => session.header.id)
      .sort();
    expect(page.results.map((result) => result.sessionId).sort(), phrase).toEqual(expected);
    for (const result of page.results) {
      expect(result.hits.length).toBeGreaterThan(0);
      for (const hit of result.hits) {
        expect(hit.highlights.length, `${phrase} in ${hit.snippet}`).toBeGreaterThan(0);
        const doc = live.get(Number(result.sessionId.split('-')[1]))?.docs.get(hit.seq);
        expect(doc, `hit seq ${hit.seq} is a current document`).toBeDefined();
        expect(hit.role).toBe(doc?.role);
        for (const [start, end] of hit.highlights) {
          // The snippet maps line breaks to spaces, which tokenise alike.
          const covered = tokens(hit.snippet.slice(start, end));
          expect(coveredByPhrase(covered, tokens(phrase)), `${JSON.stringify(covered)} is made of "${phrase}"`).toBe(true);
        }
      }
    }
  }
}

describe('search equals a brute-force scan of the current texts', () => {
  let dir: string;
  beforeAll(async () => {
    await initZstd();
    dir = await mkdtemp(join(tmpdir(), 'sessionctx-search-eq-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
  });

  for (const compression of ['none', 'zstd'] as const satisfies readonly Compression[]) {
    it(`random histories of appends, compactions, rewrites, deletions and live sessions (${compression})`, async () => {
      let run = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.tuple(textArb, textArb), { minLength: SESSIONS, maxLength: SESSIONS }),
          fc.array(actionArb, { minLength: 2, maxLength: 7 }),
          fc.array(phraseArb, { minLength: 2, maxLength: 4 }),
          async (initial, actions, phrases) => {
            run += 1;
            const root = join(dir, `${compression}-${run}`, 'root');
            const live = new Map<number, CorpusSession>();
            const generation = new Map<number, number>();
            for (const [index, [prompt, answer]] of initial.entries()) {
              const session = new CorpusSession(`s-${index}-0`, `/work/p${index % 2}`);
              session.turn(prompt, answer);
              await writeSession(root, session, compression);
              live.set(index, session);
              generation.set(index, 0);
            }
            const engine = await createEngine({
              root,
              compression,
              workers: false,
              corpus: { watch: false },
              store: { cacheDirectory: join(dir, `${compression}-${run}`, 'cache') },
            });
            // Sessions attached live: their appends stay in memory (the live log wins over the artifact).
            const attached = new Set<number>();
            const detach = (index: number, session: CorpusSession): void => {
              engine.detachLive(session.header.id);
              attached.delete(index);
            };
            try {
              await check(engine, live, phrases);
              for (const action of actions) {
                const session = live.get(action.session);
                const inMemory = attached.has(action.session);
                switch (action.kind) {
                  case 'append': {
                    if (session === undefined) break;
                    const events = session.turn(action.prompt, action.answer);
                    if (!inMemory) await appendEvents(root, session, events, compression);
                    break;
                  }
                  case 'compact': {
                    if (session === undefined) break;
                    const events = session.compact(action.summary);
                    if (!inMemory) await appendEvents(root, session, events, compression);
                    break;
                  }
                  case 'attach':
                    if (session === undefined || inMemory) break;
                    engine.attachLive(session);
                    attached.add(action.session);
                    break;
                  case 'detach':
                    // The host writes the session out, then lets it go.
                    if (session === undefined || !inMemory) break;
                    await writeSession(root, session, compression);
                    detach(action.session, session);
                    break;
                  case 'rewrite': {
                    if (session !== undefined && inMemory) detach(action.session, session);
                    // A new session under the same id: the file is replaced in place by different bytes.
                    const id = session?.header.id ?? `s-${action.session}-${(generation.get(action.session) ?? 0) + 1}`;
                    const fresh = new CorpusSession(id, `/work/p${action.session % 2}`);
                    fresh.turn(action.prompt, action.answer);
                    await writeSession(root, fresh, compression);
                    live.set(action.session, fresh);
                    break;
                  }
                  case 'delete':
                    if (session === undefined) break;
                    if (inMemory) detach(action.session, session);
                    await rm(dirname(artifactPathOf(root, session.header, compression)), { recursive: true, force: true });
                    live.delete(action.session);
                    generation.set(action.session, (generation.get(action.session) ?? 0) + 1);
                    break;
                  default:
                    throw new Error('unknown action');
                }
                await check(engine, live, phrases);
              }
            } finally {
              await engine.close();
            }
          },
        ),
        { numRuns: RUNS, seed: compression === 'none' ? 17 : 1717 },
      );
    }, 240_000);
  }
});
