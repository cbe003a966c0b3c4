// Live sessions are searched from their byte logs (issue 17 item 2): an attached session's text is found before any
// artifact exists, appends are decoded from the stored byte-log position on, a compaction that lands takes the text it
// shadows out of the index, the live log wins over a persisted copy until it is detached, a rebuilt log is indexed
// whole, and a live log whose steps do not fit hides nothing else. Expected texts come from the corpus builder's own
// oracle surface (search-corpus.ts), never from the engine's fold.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../../../src/main/engine/assembly/create-engine.js';
import { LiveLogTracker } from '../../../../src/main/engine/live/live-log-tracker.js';
import { resolveSearchConfig } from '../../../../src/main/engine/search/search-config.js';
import type { SearchIndex } from '../../../../src/main/engine/search/search-index.js';
import { type LiveSearchSource, SearchService } from '../../../../src/main/engine/search/search-service.js';
import { SqliteSearchIndex } from '../../../../src/main/engine/search/sqlite-search-index.js';
import { JsonlSessionStore } from '../../../../src/main/engine/store/jsonl-store.js';
import type { SessionEvent } from '../../../../src/protocol/events.js';
import { encodeLogEntry } from '../../../../src/protocol/wire/log-entry-codec.js';
import type { SyncInput } from '../../../../src/workers/search/search-messages.js';
import { CorpusSession, containsPhrase, writeSession } from './search-corpus.js';

let dir: string;
let root: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sessionctx-search-live-'));
  root = join(dir, 'root');
  const stored = new CorpusSession('stored-0', '/work/live');
  stored.turn('a persisted prompt about wombats', 'a persisted answer');
  await writeSession(root, stored, 'none');
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
});

/** A service over the root with the given live sessions and a fixed corpus version, its sync requests recorded. */
async function liveService(
  name: string,
  sessions: () => readonly CorpusSession[],
): Promise<{ service: SearchService; requests: SyncInput[]; close: () => Promise<void> }> {
  const store = await JsonlSessionStore.open({ root, compression: 'none', titleIndex: false });
  const sqlite = new SqliteSearchIndex({ databasePath: join(dir, name, 'index.sqlite'), busyTimeoutMs: 1000 });
  const requests: SyncInput[] = [];
  const index: SearchIndex = {
    sync: (request, options) => {
      requests.push(request);
      return sqlite.sync(request, options);
    },
    syncChanges: (request, options) => {
      requests.push(request);
      return sqlite.syncChanges(request, options);
    },
    query: (rootPath, plan, signal) => sqlite.query(rootPath, plan, signal),
    status: (rootPath, signal) => sqlite.status(rootPath, signal),
    clear: (rootPath, signal) => sqlite.clear(rootPath, signal),
    close: () => sqlite.close(),
  };
  const tracker = new LiveLogTracker();
  const version = {};
  const service = new SearchService({
    config: resolveSearchConfig({ directory: join(dir, name) }),
    index,
    store,
    readTitleSnapshots: async () => [],
    corpusChanges: async () => ({ version, changed: undefined }),
    live: () => sessions().map((session): LiveSearchSource => ({ header: session.header, ...tracker.snapshot(session) })),
  });
  return { service, requests, close: () => sqlite.close() };
}

/** The session ids a phrase finds. */
async function found(service: SearchService, phrase: string): Promise<string[]> {
  return (await service.search({ query: phrase })).results.map((result) => result.sessionId);
}

describe('live sessions in the search index', () => {
  it('finds a live session, decodes only what was appended, and drops text a compaction shadows', async () => {
    const live = new CorpusSession('live-1', '/work/live');
    live.turn('the live prompt mentions capybaras', 'an answer about rounding in cartTotal');
    const { service, requests, close } = await liveService('append', () => [live]);
    try {
      const first = await service.update();
      expect(first).toMatchObject({ sessions: 2, live: 1, rebuilt: 2 });
      expect(await found(service, 'capybaras')).toEqual(['live-1']);
      const page = await service.search({ query: 'rounding in cartTotal' });
      expect(page.results[0]?.hits[0]).toMatchObject({ seq: 3, role: 'assistant' });
      expect(page.results[0]?.mention).toContain('live-1');
      // Reasoning is never indexed, live or not.
      expect(await found(service, 'secretreasoning')).toEqual([]);

      // An append: the view did not change, so only the live session is looked at, from its stored position.
      const added = live.turn('a second live prompt about quokkas', 'a second answer');
      const appended = await service.update();
      expect(requests.at(-1)?.artifacts).toBeNull();
      expect(appended).toMatchObject({ sessions: 2, live: 1, appended: 1, rebuilt: 0, removed: 0 });
      // Exactly the appended entries' bytes were decoded (each entry framed as the byte log frames it).
      expect(appended.scannedBytes).toBe(added.reduce((sum, event) => sum + encodeLogEntry(event).length, 0));
      expect(await found(service, 'quokkas')).toEqual(['live-1']);
      expect(await found(service, 'capybaras')).toEqual(['live-1']);

      // Nothing changed: no update at all.
      const syncs = requests.length;
      await service.search({ query: 'quokkas' });
      expect(requests.length).toBe(syncs);

      // A compaction lands: the shadowed prompts leave the index, the checkpoint's text is found.
      live.compact('summary of the work on marsupials');
      await service.update();
      for (const phrase of ['capybaras', 'quokkas', 'rounding in cartTotal']) {
        expect(live.currentDocs().some((doc) => containsPhrase(doc.text, phrase))).toBe(false);
        expect(await found(service, phrase)).toEqual([]);
      }
      const checkpoint = await service.search({ query: 'marsupials' });
      expect(checkpoint.results.map((result) => result.sessionId)).toEqual(['live-1']);
      expect(checkpoint.results[0]?.hits[0]?.role).toBe('checkpoint');
      // The persisted session was never touched by the live-only updates.
      expect(await found(service, 'wombats')).toEqual(['stored-0']);
    } finally {
      await close();
    }
  });

  it('indexes a rebuilt log whole, and a live log whose steps do not fit hides no other session', async () => {
    let live = new CorpusSession('live-2', '/work/live');
    live.turn('an old live prompt about pangolins', 'old answer');
    const broken = new CorpusSession('live-broken', '/work/live');
    broken.turn('the broken session mentions pangolins too', 'answer');
    // A replace range that names no current nodes: the projection fold refuses it.
    broken.events.push({
      type: 'user/message',
      seq: broken.events.length,
      time: 1,
      data: {},
      surfaceOp: { op: 'replace', start: 90, end: 99 },
    } as unknown as SessionEvent);
    const { service, close } = await liveService('rebuilt', () => [live, broken]);
    try {
      expect(await service.update()).toMatchObject({ live: 2, unindexable: 1 });
      expect(await found(service, 'pangolins')).toEqual(['live-2']);
      expect(await found(service, 'wombats')).toEqual(['stored-0']);

      // Another session object under the same id (a host that reloaded it): its log is a new one, indexed whole.
      live = new CorpusSession('live-2', '/work/live');
      live.turn('a fresh prompt about axolotls', 'fresh answer');
      expect(await service.update()).toMatchObject({ live: 2, rebuilt: 1 });
      expect(await found(service, 'axolotls')).toEqual(['live-2']);
      expect(await found(service, 'pangolins')).toEqual([]);
    } finally {
      await close();
    }
  });

  it('through the engine: the live log wins over the persisted copy until it is detached', async () => {
    const engine = await createEngine({
      root,
      compression: 'none',
      workers: false,
      store: { cacheDirectory: join(dir, 'cache') },
      search: { directory: join(dir, 'engine-search') },
    });
    try {
      expect((await engine.searchSessions({ query: 'wombats' })).results.map((result) => result.sessionId)).toEqual(['stored-0']);
      // The same session, live, with more than its artifact holds (the host has not written it yet).
      const live = new CorpusSession('stored-0', '/work/live');
      live.turn('a persisted prompt about wombats', 'a persisted answer');
      live.turn('an unwritten prompt about numbats', 'an unwritten answer');
      engine.attachLive(live);
      const ids = async (phrase: string): Promise<string[]> =>
        (await engine.searchSessions({ query: phrase })).results.map((result) => result.sessionId);
      expect(await ids('numbats')).toEqual(['stored-0']);
      expect(await ids('wombats')).toEqual(['stored-0']);
      const liveOnly = new CorpusSession('only-live', '/work/live');
      liveOnly.turn('nothing on disk mentions bilbies', 'answer');
      engine.attachLive(liveOnly);
      expect(await ids('bilbies')).toEqual(['only-live']);

      // Detached: the artifact is what there is again, and a session with no artifact is gone.
      engine.detachLive(live.header.id);
      engine.detachLive(liveOnly.header.id);
      expect(await ids('numbats')).toEqual([]);
      expect(await ids('bilbies')).toEqual([]);
      expect(await ids('wombats')).toEqual(['stored-0']);
    } finally {
      await engine.close();
    }
  });
});
