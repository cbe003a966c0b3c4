// Issue 27 item 2: with a warm corpus view, the search update hands its index only the sessions the view reports
// changed (an append to k of n logs costs k stats in the worker, not n), and still reflects every change the view
// saw: appends, removals, additions, a new title. When the view's change log overflowed, the whole listing goes
// instead and the answers equal a fresh index's.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { artifactPathOf } from '../../../../bench/support/long-session.js';
import { createEngine, type LocalSessionEngine } from '../../../../src/main/engine/assembly/create-engine.js';
import { realPathOf } from '../../../../src/main/engine/config/cache-location.js';
import { CorpusView } from '../../../../src/main/engine/corpus/corpus-view.js';
import { InMemoryLiveRegistry } from '../../../../src/main/engine/corpus/live-registry.js';
import { SessionQuery } from '../../../../src/main/engine/corpus/session-query.js';
import { WarmDiscovery } from '../../../../src/main/engine/corpus/warm-discovery.js';
import { resolveSearchConfig } from '../../../../src/main/engine/search/search-config.js';
import type { SearchIndex } from '../../../../src/main/engine/search/search-index.js';
import { SearchService } from '../../../../src/main/engine/search/search-service.js';
import { SqliteSearchIndex } from '../../../../src/main/engine/search/sqlite-search-index.js';
import { JsonlSessionStore } from '../../../../src/main/engine/store/jsonl-store.js';
import type { SessionEvent } from '../../../../src/protocol/events.js';
import { appendEvents, CorpusSession, writeSession } from './search-corpus.js';

const SESSIONS = 12;

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sessionctx-search-changes-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
});

/** A root of `SESSIONS` sessions, each with one turn naming it. */
async function corpusRoot(name: string): Promise<{ root: string; sessions: CorpusSession[] }> {
  const root = join(dir, name);
  const sessions: CorpusSession[] = [];
  for (let index = 0; index < SESSIONS; index += 1) {
    const session = new CorpusSession(`${name}-${String(index).padStart(2, '0')}`, `/work/${index % 3}`);
    session.turn(`first prompt ${index}`, `first answer ${index}`);
    await writeSession(root, session, 'none');
    sessions.push(session);
  }
  return { root, sessions };
}

/** Appends one turn saying `text` to `session`'s log. */
async function appendTurn(root: string, session: CorpusSession, text: string): Promise<void> {
  await appendEvents(root, session, session.turn(text, 'an answer'), 'none');
}

/** Appends a `session/title` event to `session`'s log. */
async function retitle(root: string, session: CorpusSession, title: string): Promise<void> {
  const last = session.events[session.events.length - 1] as SessionEvent;
  const event = {
    type: 'session/title',
    seq: session.events.length,
    time: last.time + 1000,
    data: { title, messageSeqs: [1], source: { kind: 'fallback' } },
  } as SessionEvent;
  session.events.push(event);
  await appendEvents(root, session, [event], 'none');
}

/** A warm engine whose view sweeps on every call (deterministic without waiting for notifications), and the progress totals of its index updates. */
async function warmEngine(root: string, name: string): Promise<{ engine: LocalSessionEngine; totals: number[] }> {
  const totals: number[] = [];
  const engine = await createEngine({
    root,
    compression: 'none',
    workers: false,
    store: { cacheDirectory: join(dir, `${name}-cache`) },
    search: { directory: join(dir, `${name}-search`) },
    corpus: { revalidateMs: 0 },
    onSearchProgress: (_done, total) => totals.push(total),
  });
  return { engine, totals };
}

async function found(engine: LocalSessionEngine, query: string): Promise<string[]> {
  return (await engine.searchSessions({ query, limit: 100 })).results.map((result) => result.sessionId).sort();
}

describe('search over the changes a warm corpus view reports', () => {
  it('asks the index about exactly the k appended sessions of n', async () => {
    const { root, sessions } = await corpusRoot('append');
    const { engine, totals } = await warmEngine(root, 'append');
    try {
      expect(await found(engine, 'first answer')).toHaveLength(SESSIONS);
      expect(totals.at(-1)).toBe(SESSIONS);
      const grown = [sessions[3], sessions[7]] as CorpusSession[];
      for (const session of grown) await appendTurn(root, session, `a question about quokkas ${session.header.id}`);
      totals.length = 0;
      expect(await found(engine, 'quokkas')).toEqual(grown.map((session) => session.header.id).sort());
      // Every progress report of that update counted the 2 appended sessions, never the 12 listed.
      expect(totals.length).toBeGreaterThan(0);
      expect(new Set(totals)).toEqual(new Set([grown.length]));
    } finally {
      await engine.close();
    }
  }, 30_000);

  it('reflects a removed and an added session', async () => {
    const { root, sessions } = await corpusRoot('churn');
    const { engine, totals } = await warmEngine(root, 'churn');
    try {
      expect(await found(engine, 'first prompt')).toHaveLength(SESSIONS);
      const gone = sessions[5] as CorpusSession;
      await rm(dirname(artifactPathOf(root, gone.header, 'none')), { recursive: true });
      const added = new CorpusSession('churn-new', '/work/new');
      added.turn('first prompt of a newcomer', 'first answer');
      await writeSession(root, added, 'none');
      totals.length = 0;
      const after = await found(engine, 'first prompt');
      expect(after).toContain(added.header.id);
      expect(after).not.toContain(gone.header.id);
      expect(after).toHaveLength(SESSIONS);
      // Only the added session was listed to the index (the removed one went by id).
      expect(new Set(totals)).toEqual(new Set([1]));
      expect(await engine.buildSearchIndex()).toMatchObject({ sessions: SESSIONS, removed: 0 });
    } finally {
      await engine.close();
    }
  }, 30_000);

  it("updates a retitled session's label", async () => {
    const { root, sessions } = await corpusRoot('title');
    const { engine } = await warmEngine(root, 'title');
    try {
      const target = sessions[2] as CorpusSession;
      const before = (await engine.searchSessions({ query: 'first prompt 2' })).results;
      expect(before.map((result) => result.label)).not.toContain('Quokka planning');
      await retitle(root, target, 'Quokka planning');
      const after = (await engine.searchSessions({ query: 'first prompt 2' })).results;
      expect(after.find((result) => result.sessionId === target.header.id)?.label).toBe('Quokka planning');
    } finally {
      await engine.close();
    }
  }, 30_000);
});

/** The index with what each update handed it recorded. */
function recorded(index: SearchIndex): { index: SearchIndex; calls: { kind: 'sync' | 'changes'; sessions: number | null }[] } {
  const calls: { kind: 'sync' | 'changes'; sessions: number | null }[] = [];
  return {
    calls,
    index: {
      sync: (request, options) => {
        calls.push({ kind: 'sync', sessions: request.artifacts?.length ?? null });
        return index.sync(request, options);
      },
      syncChanges: (request, options) => {
        calls.push({ kind: 'changes', sessions: request.artifacts.length });
        return index.syncChanges(request, options);
      },
      query: (rootPath, plan, signal) => index.query(rootPath, plan, signal),
      status: (rootPath, signal) => index.status(rootPath, signal),
      clear: (rootPath, signal) => index.clear(rootPath, signal),
      close: () => index.close(),
    },
  };
}

/** A search service over a warm view built from the parts (so the change log's bound can be chosen). */
async function manualSearch(
  root: string,
  name: string,
  view: { readonly changeLogLimit?: number } | undefined,
): Promise<{ service: SearchService; calls: { kind: 'sync' | 'changes'; sessions: number | null }[]; close: () => Promise<void> }> {
  const store = await JsonlSessionStore.open({ root, compression: 'none', titleIndex: false });
  const registry = new InMemoryLiveRegistry();
  const cold = new SessionQuery({ registry, storage: store });
  const corpusView =
    view === undefined ? undefined : new CorpusView({ config: store.config, revalidateMs: 0, ignoreNotifications: true, ...view });
  const warm = corpusView === undefined ? undefined : new WarmDiscovery({ store, registry, view: corpusView, cold });
  const sqlite = new SqliteSearchIndex({ databasePath: join(dir, `${name}-index`, 'index.sqlite'), busyTimeoutMs: 1000 });
  const { index, calls } = recorded(sqlite);
  const service = new SearchService({
    config: resolveSearchConfig({ directory: join(dir, `${name}-index`) }),
    index,
    store,
    readTitleSnapshots: (ids, signal) => (warm ?? cold).readTitleSnapshots(ids, signal),
    ...(warm === undefined ? {} : { corpusChanges: (since: object | undefined) => warm.corpusChanges(since) }),
  });
  return {
    service,
    calls,
    close: async () => {
      await sqlite.close();
      await corpusView?.close();
    },
  };
}

/** Every page of a query's answers, as comparable values. */
async function allAnswers(service: SearchService, query: string): Promise<unknown[]> {
  const page = await service.search({ query, limit: 100 });
  return page.results.map((result) => ({ id: result.sessionId, hits: result.hits.map((hit) => hit.snippet) }));
}

describe('search when the corpus view cannot say what changed', () => {
  it('sends the whole listing after the change log overflowed, and answers as a fresh index', async () => {
    const { root, sessions } = await corpusRoot('overflow');
    const warm = await manualSearch(root, 'overflow-warm', { changeLogLimit: 2 });
    try {
      expect(await allAnswers(warm.service, 'first answer')).toHaveLength(SESSIONS);
      // One changed session fits the log: only it is handed over.
      await appendTurn(root, sessions[0] as CorpusSession, 'zebra note 0');
      expect((await allAnswers(warm.service, 'zebra note')).length).toBe(1);
      expect(warm.calls.at(-1)).toEqual({ kind: 'changes', sessions: 1 });
      // Three changed sessions overflow a log of 2: the whole listing goes.
      for (const index of [1, 4, 9]) await appendTurn(root, sessions[index] as CorpusSession, `zebra note ${index}`);
      const rm5 = sessions[5] as CorpusSession;
      await rm(dirname(artifactPathOf(root, rm5.header, 'none')), { recursive: true });
      const answers = await allAnswers(warm.service, 'zebra note');
      expect(warm.calls.at(-1)).toEqual({ kind: 'sync', sessions: SESSIONS - 1 });
      const fresh = await manualSearch(root, 'overflow-fresh', undefined);
      try {
        for (const query of ['zebra note', 'first answer', 'first prompt 5', 'an answer']) {
          expect(await allAnswers(warm.service, query), query).toEqual(await allAnswers(fresh.service, query));
        }
        expect(answers).toHaveLength(4);
      } finally {
        await fresh.close();
      }
    } finally {
      await warm.close();
    }
  }, 30_000);

  it('sends the whole listing when another connection wrote the index since (it cannot vouch for its rows)', async () => {
    const { root, sessions } = await corpusRoot('beside');
    const warm = await manualSearch(root, 'beside', {});
    const other = new SqliteSearchIndex({ databasePath: join(dir, 'beside-index', 'index.sqlite'), busyTimeoutMs: 1000 });
    try {
      expect(await allAnswers(warm.service, 'first answer')).toHaveLength(SESSIONS);
      // Another process syncs a listing that lacks session 6 (as if it listed before 6 existed): its row is gone.
      const store = await JsonlSessionStore.open({ root, compression: 'none', titleIndex: false });
      const listed = (await store.list()).filter((header) => header.id !== (sessions[6] as CorpusSession).header.id);
      await other.sync({
        root: await realPathOf(root),
        storeRoot: root,
        compression: 'none',
        includeTools: false,
        live: [],
        artifacts: listed,
      });
      await appendTurn(root, sessions[2] as CorpusSession, 'zebra note 2');
      expect((await allAnswers(warm.service, 'zebra note')).length).toBe(1);
      // Asked for changes first, refused, then the whole listing: session 6 is indexed again.
      expect(warm.calls.slice(-2)).toEqual([
        { kind: 'changes', sessions: 1 },
        { kind: 'sync', sessions: SESSIONS },
      ]);
      expect(await allAnswers(warm.service, 'first answer')).toHaveLength(SESSIONS);
    } finally {
      await other.close();
      await warm.close();
    }
  }, 30_000);
});
