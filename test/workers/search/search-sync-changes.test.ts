// Issue 27 item 2: a sync of changes only plans (stats) just the sessions it is handed, removes the ids it names as
// no longer listed, and trusts every other row — so it refuses (answers null, doing nothing) whenever its rows may not
// be what the caller's last sync left: a new connection (an in-memory index would be empty), no whole listing synced
// on it yet, or another connection committed since.
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSearchDatabase, type Database, type DatabaseConstructor } from '../../../src/workers/search/search-database.js';
import type { SyncArtifact, SyncChangesRequest, SyncRequest } from '../../../src/workers/search/search-messages.js';
import { SearchSync } from '../../../src/workers/search/search-sync.js';
import { appendEvents, CorpusSession, writeSession } from '../../main/engine/search/search-corpus.js';

let dir: string;
let root: string;
const open: Database[] = [];
const control = { signal: new AbortController().signal, poll: () => {}, pollFn: () => {} };
const sessions: CorpusSession[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sessionctx-search-changes-'));
  root = join(dir, 'root');
  for (let index = 0; index < 8; index += 1) {
    const session = new CorpusSession(`c-${index}`, '/work/c');
    session.turn(`prompt ${index}`, `answer ${index}`);
    await writeSession(root, session, 'none');
    sessions.push(session);
  }
});

afterAll(async () => {
  for (const db of open) db.close();
  await rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
});

function connect(path: string | null): { sync: SearchSync; db: Database } {
  const Sqlite = createRequire(import.meta.url)('better-sqlite3') as DatabaseConstructor;
  const { db } = openSearchDatabase(Sqlite, path, 1000);
  open.push(db);
  return { sync: new SearchSync(db), db };
}

function artifactsOf(listed: readonly CorpusSession[]): SyncArtifact[] {
  return listed.map((session) => ({ sessionId: session.header.id, cwd: session.header.cwd ?? null, createdAt: session.header.createdAt }));
}

function whole(listed: readonly CorpusSession[]): SyncRequest {
  return {
    type: 'sync',
    id: 1,
    root: '/index/root',
    storeRoot: root,
    compression: 'none',
    includeTools: false,
    live: [],
    artifacts: artifactsOf(listed),
  };
}

function changes(listed: readonly CorpusSession[], removed: readonly string[] = []): SyncChangesRequest {
  return { ...whole(listed), artifacts: artifactsOf(listed), removed };
}

function indexedIds(db: Database): string[] {
  return (
    db.prepare('SELECT session_id FROM sessions WHERE root = ? ORDER BY session_id').all('/index/root') as { session_id: string }[]
  ).map((row) => row.session_id);
}

describe('a sync of changes only', () => {
  it('looks at only the sessions it is handed and removes the ids it names', async () => {
    const { sync, db } = connect(null);
    // A new connection has no rows it could vouch for: refused, nothing written.
    expect(await sync.syncChanges(changes(sessions.slice(0, 1)), control, () => {})).toBeNull();
    expect(indexedIds(db)).toEqual([]);
    expect(await sync.sync(whole(sessions), control, () => {})).toMatchObject({ sessions: 8, rebuilt: 8 });
    const grown = sessions[3] as CorpusSession;
    await appendEvents(root, grown, grown.turn('a quokka appears', 'noted'), 'none');
    const progress: [number, number][] = [];
    const summary = await sync.syncChanges(changes([grown], ['c-6']), control, (done, total) => progress.push([done, total]));
    // One session planned (appended), none of the other seven stat'ed; the removed one gone; the count is the root's.
    expect(summary).toMatchObject({ sessions: 7, appended: 1, unchanged: 0, rebuilt: 0, removed: 1 });
    expect(progress).toEqual([[1, 1]]);
    expect(indexedIds(db)).toEqual(['c-0', 'c-1', 'c-2', 'c-3', 'c-4', 'c-5', 'c-7']);
    // An id named removed that the index never held is nothing to remove.
    expect(await sync.syncChanges(changes([], ['c-never']), control, () => {})).toMatchObject({ sessions: 7, removed: 0 });
  });

  it('is refused after a sync without the whole listing, and after another connection committed', async () => {
    const path = join(dir, 'shared', 'index.sqlite');
    const first = connect(path);
    const second = connect(path);
    // Only live sessions (no listing): the rows are read, but nothing vouches for them yet.
    expect(await first.sync.sync({ ...whole([]), artifacts: null }, control, () => {})).toMatchObject({ sessions: 0 });
    expect(await first.sync.syncChanges(changes([]), control, () => {})).toBeNull();
    expect(await first.sync.sync(whole(sessions), control, () => {})).toMatchObject({ sessions: 8 });
    expect(await first.sync.syncChanges(changes([]), control, () => {})).toMatchObject({ sessions: 8 });
    // The other connection syncs a listing without c-0 (its row goes): the first one's rows are no longer vouched for.
    expect(await second.sync.sync(whole(sessions.slice(1)), control, () => {})).toMatchObject({ removed: 1 });
    expect(await first.sync.syncChanges(changes([]), control, () => {})).toBeNull();
    // The whole listing again: every row answers to it, and changes are taken again.
    expect(await first.sync.sync(whole(sessions), control, () => {})).toMatchObject({ sessions: 8, rebuilt: 1 });
    expect(await first.sync.syncChanges(changes([]), control, () => {})).toMatchObject({ sessions: 8 });
  });
});
