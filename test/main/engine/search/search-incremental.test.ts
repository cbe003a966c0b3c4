// Issue 17 item 2, the incremental rules as the index update reports them: a first update scans every log; an
// unchanged root scans nothing (a stat each); an append is scanned from the last offset (only the new bytes); a
// compaction removes the shadowed documents; a rewrite that shrinks a log rebuilds it; a deleted session is removed;
// changing includeTools re-indexes each log once.
import { stat, truncate, rm } from 'node:fs/promises';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SearchService } from '../../../../src/main/engine/search/search-service.js';
import { resolveSearchConfig } from '../../../../src/main/engine/search/search-config.js';
import { SqliteSearchIndex } from '../../../../src/main/engine/search/sqlite-search-index.js';
import { JsonlSessionStore } from '../../../../src/main/engine/store/jsonl-store.js';
import { artifactPathOf } from '../../../../bench/support/long-session.js';
import { appendEvents, CorpusSession, writeSession } from './search-corpus.js';

let dir: string;
let root: string;
const sessions: CorpusSession[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sessionctx-search-incremental-'));
  root = join(dir, 'root');
  for (let index = 0; index < 5; index += 1) {
    const session = new CorpusSession(`s-${index}`, '/work/inc');
    session.turn(`first prompt ${index}`, `first answer ${index}`);
    await writeSession(root, session, 'none');
    sessions.push(session);
  }
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
});

function service(includeTools: boolean, index: SqliteSearchIndex, store: JsonlSessionStore): SearchService {
  return new SearchService({
    config: resolveSearchConfig({ directory: join(dir, 'search'), includeTools }),
    index,
    store,
    readTitleSnapshots: async () => [],
  });
}

describe('index updates', () => {
  it('follow each log by its revision', async () => {
    const store = await JsonlSessionStore.open({ root, compression: 'none', titleIndex: false });
    const index = new SqliteSearchIndex({ databasePath: join(dir, 'search', 'index.sqlite'), busyTimeoutMs: 1000 });
    try {
      const search = service(false, index, store);
      const first = await search.update();
      expect(first).toMatchObject({ sessions: 5, rebuilt: 5, unchanged: 0, appended: 0, removed: 0 });
      expect(first.documents).toBe(10);

      expect(await search.update()).toMatchObject({ sessions: 5, unchanged: 5, rebuilt: 0, appended: 0, scannedBytes: 0 });

      const grown = sessions[1] as CorpusSession;
      const path = artifactPathOf(root, grown.header, 'none');
      const before = (await stat(path)).size;
      await appendEvents(root, grown, grown.turn('second prompt about zebras', 'second answer'), 'none');
      const after = (await stat(path)).size;
      const appended = await search.update();
      expect(appended).toMatchObject({ unchanged: 4, appended: 1, rebuilt: 0, documents: 12 });
      expect(appended.scannedBytes).toBe(after - before);
      expect((await search.search({ query: 'zebras' })).results.map((result) => result.sessionId)).toEqual(['s-1']);

      // A compaction replaces the four current documents by one checkpoint.
      await appendEvents(root, grown, grown.compact('summary of the zebra work'), 'none');
      expect(await search.update()).toMatchObject({ appended: 1, documents: 9 });
      expect((await search.search({ query: 'second prompt' })).results).toEqual([]);
      expect((await search.search({ query: 'zebra work' })).results.map((result) => result.sessionId)).toEqual(['s-1']);

      // A shrunk log (a repair truncated it) is rebuilt from its bytes.
      const shrunk = sessions[2] as CorpusSession;
      const shrunkPath = artifactPathOf(root, shrunk.header, 'none');
      await truncate(shrunkPath, (await stat(shrunkPath)).size - 1);
      const rebuilt = await search.update();
      // Its torn last line makes it either a shorter valid log or not a valid one: scanned whole either way.
      expect(rebuilt).toMatchObject({ unchanged: 4, appended: 0 });
      expect(rebuilt.rebuilt + rebuilt.unindexable).toBe(1);

      await rm(dirname(artifactPathOf(root, (sessions[3] as CorpusSession).header, 'none')), { recursive: true });
      expect(await search.update()).toMatchObject({ sessions: 4, removed: 1, unchanged: 4 });
      expect((await search.search({ query: 'first answer 3' })).results).toEqual([]);

      // Turning tool text on re-indexes every log once, then they are unchanged again.
      const withTools = service(true, index, store);
      expect(await withTools.update()).toMatchObject({ rebuilt: 4, unchanged: 0 });
      expect(await withTools.update()).toMatchObject({ unchanged: 4 });
    } finally {
      await index.close();
    }
  });
});
