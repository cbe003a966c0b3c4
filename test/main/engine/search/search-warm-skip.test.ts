// A long-lived engine's search skips the index update (one stat per log in the worker) while the warm corpus view
// saw no change, and updates again as soon as the view's version changes: an append is found by the next search.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../../../src/main/engine/assembly/create-engine.js';
import { resolveSearchConfig } from '../../../../src/main/engine/search/search-config.js';
import type { SearchIndex } from '../../../../src/main/engine/search/search-index.js';
import { SearchService } from '../../../../src/main/engine/search/search-service.js';
import { SqliteSearchIndex } from '../../../../src/main/engine/search/sqlite-search-index.js';
import { JsonlSessionStore } from '../../../../src/main/engine/store/jsonl-store.js';
import { appendEvents, CorpusSession, writeSession } from './search-corpus.js';

let dir: string;
let root: string;
const sessions: CorpusSession[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sessionctx-search-skip-'));
  root = join(dir, 'root');
  for (let index = 0; index < 3; index += 1) {
    const session = new CorpusSession(`skip-${index}`, '/work/skip');
    session.turn(`first prompt ${index}`, `first answer ${index}`);
    await writeSession(root, session, 'none');
    sessions.push(session);
  }
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
});

/** The index with its `sync` calls counted. */
function counted(index: SearchIndex): { index: SearchIndex; syncs: () => number } {
  let syncs = 0;
  return {
    index: {
      sync: (request, options) => {
        syncs += 1;
        return index.sync(request, options);
      },
      syncChanges: (request, options) => {
        syncs += 1;
        return index.syncChanges(request, options);
      },
      query: (rootPath, plan, signal) => index.query(rootPath, plan, signal),
      status: (rootPath, signal) => index.status(rootPath, signal),
      clear: (rootPath, signal) => index.clear(rootPath, signal),
      close: () => index.close(),
    },
    syncs: () => syncs,
  };
}

describe('search over a warm corpus view', () => {
  it('updates the index only when the corpus version changes', async () => {
    const store = await JsonlSessionStore.open({ root, compression: 'none', titleIndex: false });
    const sqlite = new SqliteSearchIndex({ databasePath: join(dir, 'unit', 'index.sqlite'), busyTimeoutMs: 1000 });
    const { index, syncs } = counted(sqlite);
    let version: object = {};
    const service = new SearchService({
      config: resolveSearchConfig({ directory: join(dir, 'unit') }),
      index,
      store,
      readTitleSnapshots: async () => [],
      corpusChanges: async () => ({ version, changed: undefined }),
    });
    try {
      expect(await service.update()).toMatchObject({ sessions: 3, rebuilt: 3 });
      expect(syncs()).toBe(1);
      // Same version: no update, and the summary says every session is unchanged.
      expect(await service.update()).toMatchObject({ sessions: 3, unchanged: 3, rebuilt: 0, appended: 0, scannedBytes: 0 });
      expect((await service.search({ query: 'first answer' })).results).toHaveLength(3);
      expect(syncs()).toBe(1);
      // A new version: the update runs again.
      version = {};
      expect(await service.update()).toMatchObject({ sessions: 3, unchanged: 3 });
      expect(syncs()).toBe(2);
    } finally {
      await sqlite.close();
    }
  });

  it('finds an append made while the engine is warm, and skips the update when nothing changed', async () => {
    let progress = 0;
    const engine = await createEngine({
      root,
      compression: 'none',
      workers: false,
      store: { cacheDirectory: join(dir, 'cache') },
      search: { directory: join(dir, 'engine-search') },
      onSearchProgress: () => {
        progress += 1;
      },
    });
    try {
      expect((await engine.searchSessions({ query: 'first prompt' })).results).toHaveLength(3);
      const afterFirst = progress;
      expect(afterFirst).toBeGreaterThan(0);
      expect((await engine.searchSessions({ query: 'first prompt' })).results).toHaveLength(3);
      expect(progress).toBe(afterFirst);

      const grown = sessions[1] as CorpusSession;
      await appendEvents(root, grown, grown.turn('a question about quokkas', 'an answer'), 'none');
      const deadline = Date.now() + 10_000;
      let found: string[] = [];
      while (Date.now() < deadline) {
        found = (await engine.searchSessions({ query: 'quokkas' })).results.map((result) => result.sessionId);
        if (found.length > 0) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(found).toEqual([grown.header.id]);
      expect(progress).toBeGreaterThan(afterFirst);
    } finally {
      await engine.close();
    }
  });
});
