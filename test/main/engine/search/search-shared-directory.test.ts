// Issue 27 item 2: a query over the only root an index holds leaves out the per-match root filter; an index that
// several roots share (one user cache directory for every root) must still answer each root with its own sessions
// only. Answers are compared with the same root's answers from an index of its own: equal while the shared index
// holds that root alone; once it holds both, the same sessions on every page set (bm25's document frequencies and
// average length are the whole index's, so scores move with the other root's documents), best first.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type LocalSessionEngine } from '../../../../src/main/engine/assembly/create-engine.js';
import type { SearchQuery } from '../../../../src/protocol/search-types.js';
import { CorpusSession, writeSession } from './search-corpus.js';

let dir: string;
const T0 = 1_767_225_600_000;
/** Sessions per root; every session of both roots mentions "ledger", so each root's matches sit beside the other's. */
const PER_ROOT = 6;

function rootOf(name: string): string {
  return join(dir, name);
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sessionctx-search-shared-'));
  for (const [offset, name] of [
    [0, 'alpha'],
    [100, 'beta'],
  ] as const) {
    for (let index = 0; index < PER_ROOT; index += 1) {
      const session = new CorpusSession(`${name}-${index}`, index % 2 === 0 ? '/work/even' : '/work/odd', T0 + (offset + index) * 1000);
      // Different mention counts give each session its own rank; the other root's sessions rank between them.
      session.turn(`${name} prompt ${index}`, `${'ledger '.repeat(((index * 3 + offset) % 7) + 1)}closed`);
      await writeSession(rootOf(name), session, 'none');
    }
  }
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
});

function open(root: string, searchDirectory: string, cache: string): Promise<LocalSessionEngine> {
  return createEngine({
    root,
    compression: 'none',
    workers: false,
    corpus: { watch: false },
    store: { cacheDirectory: join(dir, cache) },
    search: { directory: join(dir, searchDirectory) },
  });
}

/** The sessions of every page of an answer (`answer`'s lines without their scores and hits). */
function sessionsOf(lines: readonly string[]): string[] {
  return lines.map((line) => line.split(' ')[0] as string).sort();
}

/** The scores of an answer, in its order. */
function scoresOf(lines: readonly string[]): number[] {
  return lines.map((line) => Number(line.split(' ')[1]));
}

/** Every page of a query, as session ids with their scores and hits' seqs. */
async function answer(engine: LocalSessionEngine, query: SearchQuery): Promise<string[]> {
  const out: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await engine.searchSessions({ ...query, ...(cursor === undefined ? {} : { cursor }) });
    for (const result of page.results) out.push(`${result.sessionId} ${result.score} ${result.hits.map((hit) => hit.seq).join(',')}`);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return out;
}

const QUERIES: readonly SearchQuery[] = [
  { query: 'ledger', limit: 2 },
  { query: 'ledger', limit: 50 },
  { query: 'ledger closed', limit: 3 },
  { query: 'ledger', cwd: '/work/odd', limit: 2 },
  { query: 'alpha prompt', limit: 4 },
  { query: 'beta prompt', limit: 4 },
];

describe('an index several roots share', () => {
  it('answers each root with its own sessions, as an index of that root alone does', async () => {
    const alone = {
      alpha: await open(rootOf('alpha'), 'search-alpha', 'cache-a1'),
      beta: await open(rootOf('beta'), 'search-beta', 'cache-b1'),
    };
    const expected = new Map<string, string[]>();
    try {
      for (const name of ['alpha', 'beta'] as const) {
        for (const query of QUERIES) expected.set(`${name} ${JSON.stringify(query)}`, await answer(alone[name], query));
      }
    } finally {
      await alone.alpha.close();
      await alone.beta.close();
    }
    // Each root's own sessions, and nothing of the other root (the written corpus, not the code under test).
    expect(
      expected
        .get(`alpha ${JSON.stringify(QUERIES[1])}`)
        ?.map((line) => line.split(' ')[0])
        .sort(),
    ).toEqual(Array.from({ length: PER_ROOT }, (_, index) => `alpha-${index}`));
    expect(expected.get(`beta ${JSON.stringify(QUERIES[4])}`)).toEqual([]);

    // One index for both roots: alpha queries it alone first (the only root it holds), then beta joins.
    const alpha = await open(rootOf('alpha'), 'search-shared', 'cache-a2');
    try {
      for (const query of QUERIES) expect(await answer(alpha, query)).toEqual(expected.get(`alpha ${JSON.stringify(query)}`));
      const beta = await open(rootOf('beta'), 'search-shared', 'cache-b2');
      try {
        // The index now holds both roots: each root's sessions, every one of them, best first.
        for (const [engine, name] of [
          [beta, 'beta'],
          [alpha, 'alpha'],
        ] as const) {
          for (const query of QUERIES) {
            const got = await answer(engine, query);
            expect(sessionsOf(got)).toEqual(sessionsOf(expected.get(`${name} ${JSON.stringify(query)}`) ?? []));
            const scores = scoresOf(got);
            expect(scores).toEqual([...scores].sort((a, b) => b - a));
          }
        }
      } finally {
        await beta.close();
      }
    } finally {
      await alpha.close();
    }
  });
});
