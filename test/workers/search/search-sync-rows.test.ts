// Issue 27 item 2: a sync keeps the root's rows between syncs (so the sync after appends to 1% of the logs does not
// read all 10,000 rows again): its own writes update the rows they touch, and a commit by another connection (another
// process sharing the file) makes it read them all again. Two connections to one file, one root.
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSearchDatabase, type Database, type DatabaseConstructor } from '../../../src/workers/search/search-database.js';
import type { SyncRequest } from '../../../src/workers/search/search-messages.js';
import { SearchSync } from '../../../src/workers/search/search-sync.js';
import { appendEvents, CorpusSession, writeSession } from '../../main/engine/search/search-corpus.js';

let dir: string;
let root: string;
const open: Database[] = [];
const control = { signal: new AbortController().signal, poll: () => {}, pollFn: () => {} };

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sessionctx-search-rows-'));
  root = join(dir, 'root');
});

afterAll(async () => {
  for (const db of open) db.close();
  await rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
});

function connect(path: string | null): SearchSync {
  const Sqlite = createRequire(import.meta.url)('better-sqlite3') as DatabaseConstructor;
  const { db } = openSearchDatabase(Sqlite, path, 1000);
  open.push(db);
  return new SearchSync(db);
}

function request(sessions: readonly CorpusSession[]): SyncRequest {
  return {
    type: 'sync',
    id: 1,
    root: '/index/root',
    storeRoot: root,
    compression: 'none',
    includeTools: false,
    live: [],
    artifacts: sessions.map((session) => ({
      sessionId: session.header.id,
      cwd: session.header.cwd ?? null,
      createdAt: session.header.createdAt,
    })),
  };
}

describe('the rows a sync keeps', () => {
  it('follow its own writes and are read again after another connection commits', async () => {
    const sessions = Array.from({ length: 4 }, (_, index) => {
      const session = new CorpusSession(`r-${index}`, '/work/r');
      session.turn(`prompt ${index}`, `answer ${index}`);
      return session;
    });
    for (const session of sessions.slice(0, 3)) await writeSession(root, session, 'none');
    const path = join(dir, 'search', 'index.sqlite');
    const first = connect(path);
    const second = connect(path);
    const sync = (by: SearchSync, listed: readonly CorpusSession[]) => by.sync(request(listed), control, () => {});

    expect(await sync(first, sessions.slice(0, 3))).toMatchObject({ rebuilt: 3, unchanged: 0 });
    // The other connection indexes a new log: the first one's kept rows do not have it.
    await writeSession(root, sessions[3] as CorpusSession, 'none');
    expect(await sync(second, sessions)).toMatchObject({ rebuilt: 1, unchanged: 3 });
    // Read again (another connection committed): the new row is known, nothing is inserted twice.
    expect(await sync(first, sessions)).toMatchObject({ rebuilt: 0, appended: 0, unchanged: 4 });

    // Its own write updates the row it touched: the next sync finds the appended log unchanged.
    const grown = sessions[1] as CorpusSession;
    await appendEvents(root, grown, grown.turn('more words', 'appended answer'), 'none');
    expect(await sync(first, sessions)).toMatchObject({ appended: 1, unchanged: 3 });
    expect(await sync(first, sessions)).toMatchObject({ appended: 0, rebuilt: 0, unchanged: 4 });

    // A removal is forgotten too: listed again, the log is indexed as new.
    expect(await sync(first, sessions.slice(1))).toMatchObject({ removed: 1, unchanged: 3 });
    const summary = await sync(first, sessions);
    expect(summary).toMatchObject({ rebuilt: 1, unchanged: 3 });
    // What the shared file holds equals a fresh index of the same logs.
    expect(summary.documents).toBe((await sync(connect(null), sessions)).documents);
  });
});
