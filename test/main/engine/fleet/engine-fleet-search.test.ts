/**
 * Fleet search through the engine (issue 29 item 3, docs/FLEET.md §7): with the postgres corpus index,
 * `searchSessions` — and so the CLI's `search`, MCP's `search_sessions` and the Web API — answers over every published
 * corpus; a hit of another host's session carries the mention that cites it, and citing it prepares from the
 * published source. Live sessions attached to the asking engine are searched from their logs and win over a published
 * copy. A server that cannot be reached fails with `FLEET_UNREACHABLE`; an abort rejects at once with its reason and
 * cancels the statement on the server.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createEngine, type LocalSessionEngine } from '../../../../src/main/engine/assembly/create-engine.js';
import { resolveCorpusIndexConfig } from '../../../../src/main/engine/fleet/corpus-index-config.js';
import { DatabaseUrl } from '../../../../src/main/engine/fleet/database-url.js';
import { FleetDatabase } from '../../../../src/main/engine/fleet/fleet-database.js';
import { fleetSearch } from '../../../../src/main/engine/fleet/fleet-search.js';
import { anonymousReader } from '../../../../src/main/engine/reference/reader.js';
import { resolveSearchConfig } from '../../../../src/main/engine/search/search-config.js';
import { SearchService } from '../../../../src/main/engine/search/search-service.js';
import { formatSessionReferenceMention } from '../../../../src/protocol/uri/mention-formatter.js';
import { CorpusSession, writeSession } from '../search/search-corpus.js';
import { useFleetFixture } from './fleet-test-fixture.js';

const fleet = useFleetFixture('engine-fleet-search');

function fleetEngine(root: string, host: string, url: string): Promise<LocalSessionEngine> {
  return createEngine({
    root,
    compression: 'none',
    workers: false,
    corpus: { watch: false },
    search: { directory: join(fleet.scratch, `${host}-search`) },
    corpusIndex: resolveCorpusIndexConfig({ backend: 'postgres', host }, { SESSIONCTX_DATABASE_URL: url }),
    fleetRetry: { initialDelayMs: 50, maxDelayMs: 200 },
  });
}

async function rootWith(name: string, sessions: readonly CorpusSession[]): Promise<string> {
  const root = join(fleet.scratch, name);
  mkdirSync(root, { recursive: true });
  for (const session of sessions) await writeSession(root, session, 'none');
  return root;
}

const idsOf = async (engine: LocalSessionEngine, query: string): Promise<string[]> =>
  (await engine.searchSessions({ query })).results.map((result) => result.sessionId).sort();

describe('searchSessions with the postgres corpus index', () => {
  it("answers over every host's published sessions, with mentions that cite them; live sessions win over published copies", async () => {
    const database = await fleet.cluster.createDatabase();
    const url = fleet.cluster.url(database);
    const mine = new CorpusSession('session-mine', '/work/a');
    mine.turn('wombats dig in the garden', 'yes, wombats dig');
    const theirs = new CorpusSession('session-theirs', '/work/b');
    theirs.turn('numbats eat termites', 'and wombats eat grass');
    const a = await fleetEngine(await rootWith('a', [mine]), 'host-a', url);
    const b = await fleetEngine(await rootWith('b', [theirs]), 'host-b', url);
    try {
      await a.publishToFleet();
      await b.publishToFleet();
      expect(await idsOf(a, 'wombats')).toEqual(['session-mine', 'session-theirs']);
      expect(await idsOf(b, 'WOMBATS')).toEqual(['session-mine', 'session-theirs']);
      expect(await idsOf(a, 'numbats eat')).toEqual(['session-theirs']);
      expect(await idsOf(a, 'eat numbats')).toEqual([]);

      // The remote hit carries the mention that cites it, and citing it prepares from the published source.
      const [remote] = (await a.searchSessions({ query: 'termites' })).results;
      expect(remote?.sessionId).toBe('session-theirs');
      expect(remote?.mention).toBe(formatSessionReferenceMention({ sessionId: 'session-theirs', label: remote?.label as string }));
      expect(remote?.hits[0]?.snippet).toContain('termites');
      const prepared = await a.prepareSized(
        anonymousReader(),
        [{ type: 'text', text: 'see' }],
        [{ sessionId: 'session-theirs', label: 'theirs' }],
      );
      expect(JSON.stringify(prepared)).toContain('numbats eat termites');

      // Live: its own log wins over the copy it published; a live-only session is found; the other host sees neither.
      const live = new CorpusSession('session-mine', '/work/a');
      live.turn('quolls only, now', 'nothing about the other animals');
      const liveOnly = new CorpusSession('session-live-only', '/work/a');
      liveOnly.turn('bilbies at night', 'bilbies');
      a.attachLive(live);
      a.attachLive(liveOnly);
      expect(await idsOf(a, 'wombats')).toEqual(['session-theirs']);
      expect(await idsOf(a, 'quolls')).toEqual(['session-mine']);
      expect(await idsOf(a, 'bilbies')).toEqual(['session-live-only']);
      expect(await idsOf(b, 'bilbies')).toEqual([]);
      expect(await idsOf(b, 'wombats')).toEqual(['session-mine', 'session-theirs']);
      // Pages of one merge published and live sessions exactly once, in the order of one large page.
      const extra = [1, 2, 3].map((index) => {
        const session = new CorpusSession(`session-live-${index}`, '/work/a');
        session.turn(`wombats ${'and wombats '.repeat(index)}`, 'live');
        a.attachLive(session);
        return session;
      });
      const whole = (await a.searchSessions({ query: 'wombats', limit: 100 })).results.map((result) => result.sessionId);
      expect([...whole].sort()).toEqual(['session-live-1', 'session-live-2', 'session-live-3', 'session-theirs']);
      const paged: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await a.searchSessions({ query: 'wombats', limit: 1, ...(cursor === undefined ? {} : { cursor }) });
        paged.push(...page.results.map((result) => result.sessionId));
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      expect(paged).toEqual(whole);
      for (const session of extra) a.detachLive(session.header.id);
      a.detachLive(live.header.id);
      a.detachLive(liveOnly.header.id);
      expect(await idsOf(a, 'wombats')).toEqual(['session-mine', 'session-theirs']);

      // Only the corpora asked for, when a caller names them (the shared index's own API).
      const direct = await FleetDatabase.open({ url: new DatabaseUrl(url) });
      try {
        const planner = new SearchService({
          config: resolveSearchConfig({ directory: null }),
          index: undefined as never,
          store: undefined,
          readTitleSnapshots: async () => [],
        });
        const { plan } = planner.plan({ query: 'wombats' });
        const only = async (corpora?: string[]) =>
          (await fleetSearch(direct, { plan, ...(corpora === undefined ? {} : { corpora }) })).results
            .map((result) => result.sessionId)
            .sort();
        expect(await only([b.fleetCorpusId as string])).toEqual(['session-theirs']);
        expect(await only([a.fleetCorpusId as string])).toEqual(['session-mine']);
        expect(await only([])).toEqual([]);
        expect(await only()).toEqual(['session-mine', 'session-theirs']);
      } finally {
        await direct.close();
      }

      // The local contract's validation and errors are the same.
      await expect(a.searchSessions({ query: '东京' })).rejects.toMatchObject({ code: 'SEARCH_INVALID_QUERY' });
      const aborted = new AbortController();
      const reason = new Error('gone');
      aborted.abort(reason);
      await expect(a.searchSessions({ query: 'wombats' }, aborted.signal)).rejects.toBe(reason);
    } finally {
      await a.close();
      await b.close();
    }
  }, 120_000);

  it('a session published by two corpora (hosts reading one shared root) is found once', async () => {
    const database = await fleet.cluster.createDatabase();
    const url = fleet.cluster.url(database);
    const shared = new CorpusSession('session-shared', '/work/shared');
    shared.turn('platypus eggs', 'platypus indeed');
    const root = await rootWith('shared', [shared]);
    const x = await fleetEngine(root, 'host-x', url);
    const y = await fleetEngine(root, 'host-y', url);
    try {
      await x.publishToFleet();
      await y.publishToFleet();
      const corpora = await fleet.cluster.sql(
        database,
        "SELECT count(*)::int AS n FROM sessionctx.search_sessions WHERE session_id = 'session-shared'",
      );
      expect(corpora).toEqual([{ n: 2 }]);
      const page = await x.searchSessions({ query: 'platypus' });
      expect(page.results.map((result) => result.sessionId)).toEqual(['session-shared']);
      expect(page.nextCursor).toBeUndefined();
    } finally {
      await x.close();
      await y.close();
    }
  }, 60_000);

  it('fails with FLEET_UNREACHABLE when the server cannot be reached', async () => {
    const root = await rootWith('unreachable', []);
    // A port nothing listens on: the cluster's, once it is known to be unused by another server.
    const url = fleet.cluster.url('postgres').replace(`:${fleet.cluster.port}/`, ':1/');
    const engine = await fleetEngine(root, 'host-c', url);
    try {
      await expect(engine.searchSessions({ query: 'wombats' })).rejects.toMatchObject({ name: 'FleetError', code: 'FLEET_UNREACHABLE' });
    } finally {
      await engine.close();
    }
  }, 60_000);

  it("a search's snapshot is cancelled on the server when its signal aborts", async () => {
    const name = await fleet.cluster.createDatabase();
    const database = await FleetDatabase.open({ url: new DatabaseUrl(fleet.cluster.url(name)) });
    const sleeping = async (): Promise<boolean> =>
      (
        await fleet.cluster.sql(
          name,
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE state = 'active' AND query LIKE 'SELECT pg_sleep(600)%'",
        )
      )[0]?.['n'] === 1;
    try {
      const controller = new AbortController();
      const outcome = database.readSnapshot((tx) => tx.query('SELECT pg_sleep(600)'), controller.signal).catch((error: unknown) => error);
      const deadline = Date.now() + 20_000;
      while (!(await sleeping())) {
        if (Date.now() > deadline) throw new Error('the statement never ran');
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      const reason = new Error('the caller went away');
      controller.abort(reason);
      expect(await outcome).toBe(reason);
      while (await sleeping()) {
        if (Date.now() > deadline + 20_000) throw new Error('the server never ended the statement');
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      expect(await database.readSnapshot((tx) => tx.query('SELECT 1 AS one'))).toEqual([{ one: 1 }]);
    } finally {
      await database.close();
    }
  }, 60_000);
});
