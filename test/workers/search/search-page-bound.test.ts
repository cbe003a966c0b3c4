// Issue 27 item 2: top-k inside SQLite. The page statement hands JavaScript at most `limit + 1` sessions (and at most
// `hitsPerSession` rows each) however many documents match, and paging by offset over a phrase that matches every
// document is complete and duplicate-free — checked against an independent scan of the fixture's own texts.
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEARCH_ROLES, type SearchRole } from '../../../src/protocol/search-types.js';
import { openSearchDatabase, type Database, type DatabaseConstructor } from '../../../src/workers/search/search-database.js';
import { runQuery, type QueryRowCounts } from '../../../src/workers/search/search-match.js';
import type { QueryPlan, WorkerSessionResult } from '../../../src/workers/search/search-messages.js';
import { SearchSync } from '../../../src/workers/search/search-sync.js';
import { containsPhrase, CorpusSession, writeSession } from '../../main/engine/search/search-corpus.js';

const SESSIONS = 120;
const HITS_PER_SESSION = 2;
const ROOT_KEY = '/index/root';

let dir: string;
let db: Database;
const corpus: CorpusSession[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sessionctx-search-page-'));
  const root = join(dir, 'root');
  for (let index = 0; index < SESSIONS; index += 1) {
    const session = new CorpusSession(`p-${String(index).padStart(3, '0')}`, `/work/${index % 3}`, 1_767_225_600_000 + index * 1000);
    // Every document holds "common ground"; sessions repeat in groups of 4 (equal texts: equal ranks, so ties are
    // broken by session id), with 1 to 3 turns and more or fewer mentions.
    const variant = index % 30;
    for (let turn = 0; turn <= variant % 3; turn += 1) {
      session.turn(`common ground ${'again '.repeat(variant % 5)}prompt ${turn}`, `${'common ground '.repeat(1 + (variant % 7))}answer`);
    }
    await writeSession(root, session, 'none');
    corpus.push(session);
  }
  const Sqlite = createRequire(import.meta.url)('better-sqlite3') as DatabaseConstructor;
  db = openSearchDatabase(Sqlite, null, 1000).db;
  const control = { signal: new AbortController().signal, poll: () => {}, pollFn: () => {} };
  const artifacts = corpus.map((session) => ({
    sessionId: session.header.id,
    cwd: session.header.cwd ?? null,
    createdAt: session.header.createdAt,
  }));
  const summary = await new SearchSync(db).sync(
    { type: 'sync', id: 1, root: ROOT_KEY, storeRoot: root, compression: 'none', includeTools: false, live: [], artifacts },
    control,
    () => {},
  );
  expect(summary.rebuilt).toBe(SESSIONS);
}, 60_000);

afterAll(async () => {
  db?.close();
  await rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
});

function plan(
  phrase: string,
  offset: number,
  limit: number,
  roles: readonly SearchRole[] = SEARCH_ROLES,
  cwd: string | null = null,
): QueryPlan {
  return {
    match: `"${phrase}"`,
    cjk: false,
    cwd,
    since: null,
    until: null,
    roles: [...roles],
    offset,
    limit,
    hitsPerSession: HITS_PER_SESSION,
    snippetLength: 80,
  };
}

/** The oracle: per session, how many of its documents (of these roles, in this cwd) contain the phrase. */
function oracle(phrase: string, roles: readonly SearchRole[], cwd: string | null): Map<string, number> {
  const found = new Map<string, number>();
  for (const session of corpus) {
    if (cwd !== null && session.header.cwd !== cwd) continue;
    const matching = [...session.docs.values()].filter((doc) => roles.includes(doc.role) && containsPhrase(doc.text, phrase)).length;
    if (matching > 0) found.set(session.header.id, matching);
  }
  return found;
}

/** Every page by offset, with what each page statement handed to JavaScript. */
function allPages(phrase: string, limit: number, roles: readonly SearchRole[] = SEARCH_ROLES, cwd: string | null = null) {
  const results: WorkerSessionResult[] = [];
  const counts: QueryRowCounts[] = [];
  for (let offset = 0; ; offset += limit) {
    const page = runQuery(
      db,
      ROOT_KEY,
      plan(phrase, offset, limit, roles, cwd),
      () => {},
      (seen) => counts.push(seen),
    );
    results.push(...page.results);
    if (!page.more) break;
    expect(page.results.length).toBe(limit);
  }
  return { results, counts };
}

describe('top-k inside SQLite', () => {
  it('hands JavaScript at most limit + 1 sessions for a phrase that matches every document', () => {
    for (const limit of [1, 5, 20]) {
      const counts: QueryRowCounts[] = [];
      const page = runQuery(
        db,
        ROOT_KEY,
        plan('common ground', 0, limit),
        () => {},
        (seen) => counts.push(seen),
      );
      expect(page.results.length).toBe(limit);
      expect(page.more).toBe(true);
      // Exactly the page and the one session after it, whatever the 120 sessions and 240+ documents that match.
      expect(counts).toEqual([{ sessions: limit + 1, rows: expect.any(Number) }]);
      expect(counts[0]?.rows).toBeLessThanOrEqual((limit + 1) * HITS_PER_SESSION);
    }
  });

  it('pages over a phrase matching everything completely, each session once, in rank order with ties by id', () => {
    const expected = oracle('common ground', SEARCH_ROLES, null);
    expect(expected.size).toBe(SESSIONS);
    for (const limit of [7, 50]) {
      const { results, counts } = allPages('common ground', limit);
      const ids = results.map((result) => result.sessionId);
      expect(new Set(ids).size).toBe(ids.length);
      expect(new Set(ids)).toEqual(new Set(expected.keys()));
      for (const seen of counts) expect(seen.sessions).toBeLessThanOrEqual(limit + 1);
      // The fixture has equal texts in different sessions: the tie-break is exercised.
      expect(results.some((result, at) => at > 0 && result.score === results[at - 1]?.score)).toBe(true);
      for (let at = 1; at < results.length; at += 1) {
        const before = results[at - 1] as WorkerSessionResult;
        const after = results[at] as WorkerSessionResult;
        expect(before.score > after.score || (before.score === after.score && before.sessionId < after.sessionId)).toBe(true);
      }
      // Each session's hits: its best `hitsPerSession` documents, as many as it has matching documents.
      for (const result of results) {
        expect(result.hits.length).toBe(Math.min(HITS_PER_SESSION, expected.get(result.sessionId) ?? 0));
        const session = corpus.find((candidate) => candidate.header.id === result.sessionId) as CorpusSession;
        for (const hit of result.hits) expect(containsPhrase(session.docs.get(hit.seq)?.text ?? '', 'common ground')).toBe(true);
      }
    }
  });

  it('pages completely under a role and a cwd filter', () => {
    const expected = oracle('again prompt', ['user'], '/work/1');
    expect(expected.size).toBeGreaterThan(10);
    const { results } = allPages('again prompt', 4, ['user'], '/work/1');
    const ids = results.map((result) => result.sessionId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(ids)).toEqual(new Set(expected.keys()));
    for (const result of results) for (const hit of result.hits) expect(hit.role).toBe('user');
  });

  it('hands JavaScript nothing for a phrase that matches nothing', () => {
    const counts: QueryRowCounts[] = [];
    const page = runQuery(
      db,
      ROOT_KEY,
      plan('zebra quokka', 0, 10),
      () => {},
      (seen) => counts.push(seen),
    );
    expect(page).toEqual({ results: [], more: false });
    expect(counts).toEqual([{ rows: 0, sessions: 0 }]);
  });

  it('stops a MATCH when the caller gives up, and answers the next query', () => {
    let calls = 0;
    const gaveUp = new Error('the caller gave up');
    const cancelled = (): void => {
      calls += 1;
      throw gaveUp;
    };
    expect(() => runQuery(db, ROOT_KEY, plan('common ground', 0, 10), cancelled)).toThrow(gaveUp);
    // Thrown from inside the statement (the poll function the MATCH calls), before any page was built.
    expect(calls).toBe(1);
    expect(runQuery(db, ROOT_KEY, plan('common ground', 0, 3), () => {}).results).toHaveLength(3);
  });
});
