// Issue 17 item 3, cancellation: an abort during a long index build or a query over a big corpus rejects the caller
// at once with `signal.reason`; the worker stops at its next bounded check and serves the next query correctly.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type LocalSessionEngine } from '../../../../src/main/engine/assembly/create-engine.js';
import { CorpusSession, writeSession } from './search-corpus.js';
import { SqliteSearchIndex } from '../../../../src/main/engine/search/sqlite-search-index.js';
import { phraseLiteral } from '../../../../src/main/engine/search/search-service.js';
import { realPathOf } from '../../../../src/main/engine/config/cache-location.js';
import { SEARCH_DATABASE_FILE } from '../../../../src/workers/search/search-database.js';
import type { QueryPlan } from '../../../../src/workers/search/search-messages.js';

const SESSIONS = 300;
const TURNS = 40;

let dir: string;
let root: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sessionctx-search-cancel-'));
  root = join(dir, 'root');
  for (let index = 0; index < SESSIONS; index += 1) {
    const session = new CorpusSession(`s-${index}`, '/work/big');
    for (let turn = 0; turn < TURNS; turn += 1)
      session.turn(`common words in prompt ${turn} of ${index}`, `common answer ${turn}${index === 7 ? ' unique marker' : ''}`);
    await writeSession(root, session, 'none');
  }
}, 120_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
});

function open(): Promise<LocalSessionEngine> {
  return createEngine({
    root,
    compression: 'none',
    workers: false,
    corpus: { watch: false },
    store: { cacheDirectory: join(dir, 'cache') },
    search: { directory: join(dir, 'search') },
  });
}

/** Aborts after `delayMs` and measures how long the rejection took after the abort. */
async function abortAfter(run: (signal: AbortSignal) => Promise<unknown>, delayMs: number): Promise<{ error: unknown; lagMs: number }> {
  const controller = new AbortController();
  const reason = new DOMException('the caller gave up', 'AbortError');
  let abortedAt = 0;
  setTimeout(() => {
    abortedAt = performance.now();
    controller.abort(reason);
  }, delayMs);
  try {
    await run(controller.signal);
  } catch (error) {
    return { error, lagMs: performance.now() - abortedAt };
  }
  throw new Error('the work finished before the abort');
}

describe('cancellation', () => {
  it('an abort during the index build rejects at once; the next search completes the index', async () => {
    const engine = await open();
    try {
      const { error, lagMs } = await abortAfter((signal) => engine.searchSessions({ query: 'unique marker' }, signal), 30);
      expect((error as Error).name).toBe('AbortError');
      expect((error as Error).message).toBe('the caller gave up');
      expect(lagMs).toBeLessThan(50);
      const page = await engine.searchSessions({ query: 'unique marker' });
      expect(page.results.map((result) => result.sessionId)).toEqual(['s-7']);
    } finally {
      await engine.close();
    }
  }, 120_000);

  it('an abort mid-query over 24,000 documents rejects at once; the next query is answered correctly', async () => {
    const engine = await open();
    try {
      await engine.searchSessions({ query: 'warm up' });
      // "common" is in every document: the MATCH walks all of them.
      const { error, lagMs } = await abortAfter((signal) => engine.searchSessions({ query: 'common', limit: 100 }, signal), 2);
      expect((error as Error).name).toBe('AbortError');
      expect(lagMs).toBeLessThan(50);
      const page = await engine.searchSessions({ query: 'unique marker' });
      expect(page.results.map((result) => result.sessionId)).toEqual(['s-7']);
      const all = await engine.searchSessions({ query: 'common', limit: 100 });
      expect(all.results.length).toBe(100);
      expect(all.nextCursor).toBeDefined();
    } finally {
      await engine.close();
    }
  }, 120_000);

  it('an abort inside the MATCH itself (the backend, no index update first) rejects at once; the worker stays usable', async () => {
    const engine = await open();
    await engine.searchSessions({ query: 'warm up' });
    await engine.close();
    const index = new SqliteSearchIndex({ databasePath: join(dir, 'search', SEARCH_DATABASE_FILE), busyTimeoutMs: 1000 });
    try {
      const realRoot = await realPathOf(root);
      const plan = (query: string, limit: number): QueryPlan => ({
        match: phraseLiteral(query),
        cjk: false,
        cwd: null,
        since: null,
        until: null,
        roles: ['user', 'assistant', 'checkpoint', 'tool'],
        offset: 0,
        limit,
        hitsPerSession: 3,
        snippetLength: 160,
      });
      // Start the worker and time a whole MATCH over every document.
      await index.query(realRoot, plan('unique marker', 10));
      const started = performance.now();
      const whole = await index.query(realRoot, plan('common', 100));
      const wholeMs = performance.now() - started;
      expect(whole.results.length).toBe(100);
      expect(whole.more).toBe(true);
      const { error, lagMs } = await abortAfter((signal) => index.query(realRoot, plan('common', 100), signal), Math.max(1, wholeMs / 4));
      expect((error as Error).name).toBe('AbortError');
      expect(lagMs).toBeLessThan(20);
      const next = await index.query(realRoot, plan('unique marker', 10));
      expect(next.results.map((result) => result.sessionId)).toEqual(['s-7']);
    } finally {
      await index.close();
    }
  }, 120_000);

  it('an already aborted signal rejects with its reason before any work', async () => {
    const engine = await open();
    try {
      const controller = new AbortController();
      controller.abort(new Error('before'));
      await expect(engine.searchSessions({ query: 'common' }, controller.signal)).rejects.toThrow('before');
    } finally {
      await engine.close();
    }
  });
});
