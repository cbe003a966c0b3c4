/**
 * The fleet wired into the engine (issue 29): an engine configured with the postgres corpus index publishes its root
 * in the background — at start and after each change its warm corpus view sees — and its discovery (and so the
 * catalog's `candidates`, `find`, `page`, `complete`) answers over every published corpus. Three engines, each over
 * its own third of the dsh fixture, publish into one real PostgreSQL; each one's catalog answers dsh's candidate cases
 * exactly as one local engine over the union of the roots does, and `listCandidates` exactly as dsh computed
 * (expected/candidates.json). A server that is down costs no local work: fleet queries fail typed, publishing retries
 * with backoff and catches up once it is back; a server that drops its connections mid-query recovers.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dshCorpusSession, writeDshCorpus } from '../../../../bench/support/dsh-corpus.js';
import { asSessionId } from '../../../../src/protocol/events.js';
import { SessionCatalog } from '../../../../src/main/catalog/session-catalog.js';
import { createEngine, type LocalSessionEngine } from '../../../../src/main/engine/assembly/create-engine.js';
import type { FleetPublishEvent } from '../../../../src/main/engine/fleet/background-publisher.js';
import { resolveCorpusIndexConfig } from '../../../../src/main/engine/fleet/corpus-index-config.js';
import { isFleetError } from '../../../../src/main/engine/fleet/fleet-error.js';
import { anonymousReader } from '../../../../src/main/engine/reference/reader.js';
import { ZSTD_ROOT, fixtureSessions, readExpected } from '../../../support/fixtures.js';
import { CLUSTER_PASSWORD } from '../../../support/postgres-cluster.js';
import { addFixtureSession, type CandidateCase, caseOutcomes, targetOf, useFleetFixture } from './fleet-test-fixture.js';
import { TcpSwitch } from '../../../support/tcp-switch.js';

const CASES = readExpected<CandidateCase[]>('candidates.json');
const SESSIONS = fixtureSessions();
const PAGE_SIZE = 5;

const fleet = useFleetFixture('engine-fleet');
const { rootOf } = fleet;
const addSession = addFixtureSession;

/** An engine over `root` with the postgres corpus index at `url`, publishing as `host`. */
function fleetEngine(
  root: string,
  host: string,
  url: string,
  extra: { events?: FleetPublishEvent[]; watch?: boolean; retry?: { initialDelayMs: number; maxDelayMs: number } } = {},
): Promise<LocalSessionEngine> {
  return createEngine({
    root,
    compression: 'zstd',
    workers: false,
    corpus: { watch: extra.watch ?? false },
    sourceCache: false,
    corpusIndex: resolveCorpusIndexConfig({ backend: 'postgres', host }, { SESSIONCTX_DATABASE_URL: url }),
    ...(extra.events === undefined ? {} : { onFleetEvent: (event: FleetPublishEvent) => extra.events?.push(event) }),
    ...(extra.retry === undefined ? {} : { fleetRetry: extra.retry }),
  });
}

const outcomes = (ask: (testCase: CandidateCase) => Promise<unknown>): Promise<unknown[]> => caseOutcomes(CASES, ask);

/** Polls `check` until it holds (a background publish is asynchronous by design); fails after 30 s. */
async function eventually(what: string, check: () => Promise<boolean> | boolean): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`never: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The ids the database holds, in code-unit order; none before the first publish created the schema. */
async function publishedIds(database: string): Promise<string[]> {
  const [exists] = await fleet.cluster.sql(database, "SELECT to_regclass('sessionctx.artifacts') IS NOT NULL AS exists");
  if (exists?.['exists'] !== true) return [];
  const rows = await fleet.cluster.sql(database, 'SELECT session_id FROM sessionctx.artifacts ORDER BY session_id COLLATE "C"');
  return rows.map((row) => row['session_id'] as string);
}

const sortedIds = (indexes: readonly number[]): string[] =>
  indexes.map((index) => SESSIONS[index]?.id as string).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

describe('an engine with the postgres corpus index', () => {
  it("three engines publish into one cluster; each catalog answers dsh's candidate cases over the union as one local engine does", async () => {
    const database = await fleet.cluster.createDatabase();
    const thirds = [0, 1, 2].map((host) => SESSIONS.map((_, index) => index).filter((index) => index % 3 === host));
    const engines = await Promise.all(
      thirds.map((indexes, host) => fleetEngine(rootOf(indexes), `host-${host}`, fleet.cluster.url(database))),
    );
    const local = await createEngine({
      root: rootOf(SESSIONS.map((_, index) => index)),
      compression: 'zstd',
      workers: false,
      corpus: { watch: false },
    });
    try {
      for (const engine of engines) await engine.publishToFleet();
      expect(await publishedIds(database)).toEqual(sortedIds(SESSIONS.map((_, index) => index)));
      const localCatalog = new SessionCatalog(local, { pageSize: PAGE_SIZE });
      const expectedCandidates = await outcomes((testCase) =>
        localCatalog.candidates(targetOf(testCase.target), testCase.query, testCase.limit ?? undefined),
      );
      const dsh = CASES.map((testCase) =>
        Array.isArray(testCase.result)
          ? JSON.stringify(testCase.result)
          : { name: testCase.result.error.name, code: testCase.result.error.code, message: testCase.result.error.message },
      );
      const localPages = await pagesOf(localCatalog);
      for (const engine of engines) {
        const catalog = new SessionCatalog(engine, { pageSize: PAGE_SIZE });
        expect(
          await outcomes((testCase) => catalog.candidates(targetOf(testCase.target), testCase.query, testCase.limit ?? undefined)),
        ).toEqual(expectedCandidates);
        expect(
          await outcomes((testCase) => engine.listCandidates(targetOf(testCase.target), testCase.query, testCase.limit ?? undefined)),
        ).toEqual(dsh);
        // MCP's list (pages), find and completion read the same discovery.
        expect(await pagesOf(catalog)).toEqual(localPages);
        expect(await catalog.find('', 100)).toEqual(await localCatalog.find('', 100));
        expect(await catalog.complete('a', 'id')).toEqual(await localCatalog.complete('a', 'id'));
      }
    } finally {
      await Promise.all([...engines, local].map((engine) => engine.close()));
    }
  }, 180_000);

  it("merges the engine's live sessions (which no database holds) into its fleet answers, as one local engine does", async () => {
    const database = await fleet.cluster.createDatabase();
    const thirds = [0, 1, 2].map((host) => SESSIONS.map((_, index) => index).filter((index) => index % 3 === host));
    const engines = await Promise.all(
      thirds.map((indexes, host) => fleetEngine(rootOf(indexes), `live-${host}`, fleet.cluster.url(database))),
    );
    const local = await createEngine({
      root: rootOf(SESSIONS.map((_, index) => index)),
      compression: 'zstd',
      workers: false,
      corpus: { watch: false },
    });
    try {
      for (const engine of engines) await engine.publishToFleet();
      const asker = engines[0] as LocalSessionEngine;
      // A published session of another host, live here with its whole log, and a session that is live only.
      const published = SESSIONS[1];
      if (published === undefined || local.store === undefined) throw new Error('fixture too small');
      const { meta, events } = await local.store.inspect(asSessionId(published.id));
      const fresh = { header: { ...meta, id: asSessionId('session-live-only'), createdAt: meta.createdAt + 1 }, events: [] };
      for (const engine of [asker, local]) {
        engine.attachLive({ header: meta, events });
        engine.attachLive(fresh);
      }
      const ask = (engine: LocalSessionEngine) =>
        outcomes((testCase) => engine.listCandidates(targetOf(testCase.target), testCase.query, testCase.limit ?? undefined));
      expect(await ask(asker)).toEqual(await ask(local));
      for (const query of ['', 'live', 'session'])
        expect(await asker.candidates(anonymousReader(), query, 100)).toEqual(await local.candidates(anonymousReader(), query, 100));
      expect((await asker.listCandidates(anonymousReader(), 'live-only')).map((candidate) => candidate.sessionId)).toEqual([
        'session-live-only',
      ]);
    } finally {
      await Promise.all([...engines, local].map((engine) => engine.close()));
    }
  }, 180_000);

  it('publishes at start and again after each change the warm corpus view sees, reporting progress', async () => {
    const database = await fleet.cluster.createDatabase();
    const first = SESSIONS.map((_, index) => index).filter((index) => index % 2 === 0);
    const root = rootOf(first);
    const events: FleetPublishEvent[] = [];
    const engine = await fleetEngine(root, 'watcher', fleet.cluster.url(database), { events, watch: true });
    try {
      await eventually('the first publish', () => events.some((event) => event.kind === 'published'));
      expect(await publishedIds(database)).toEqual(sortedIds(first));
      // Discoverable first, then citable.
      const progress = events.flatMap((event) => (event.kind === 'progress' ? [event] : []));
      expect(progress.slice(0, 2)).toEqual([
        { kind: 'progress', stage: 'artifacts', done: first.length, total: first.length },
        { kind: 'progress', stage: 'sources', done: first.length, total: first.length },
      ]);
      // A session appears below the root: the view's change signal brings a publish, without being asked.
      addSession(root, 1);
      await eventually('the publish after the change', async () => (await publishedIds(database)).includes(SESSIONS[1]?.id as string));
      expect(await publishedIds(database)).toEqual(sortedIds([...first, 1]));
      const published = events.flatMap((event) => (event.kind === 'published' ? [event.summary] : []));
      expect(published[0]).toMatchObject({ corpusId: `watcher:${root}`, published: first.length, removed: 0 });
      expect(published.some((summary) => summary.published === 1 && summary.unchanged === first.length)).toBe(true);
      expect(engine.fleetCorpusId).toBe(`watcher:${root}`);
    } finally {
      await engine.close();
    }
  }, 120_000);

  it('with the server down: local work goes on, fleet queries fail typed, publishing backs off and catches up when it is back', async () => {
    const database = await fleet.cluster.createDatabase();
    const gate = await TcpSwitch.start(fleet.cluster.port);
    await gate.off();
    const url = fleet.cluster.url(database).replace(`:${fleet.cluster.port}/`, `:${gate.port}/`);
    const indexes = SESSIONS.map((_, index) => index);
    const root = rootOf(indexes);
    const events: FleetPublishEvent[] = [];
    const engine = await fleetEngine(root, 'flaky', url, { events, retry: { initialDelayMs: 20, maxDelayMs: 80 } });
    try {
      expect((await engine.listSessions()).length).toBe(SESSIONS.length);
      const first = SESSIONS[0];
      if (first === undefined) throw new Error('no fixture');
      expect((await engine.readSurface(asSessionId(first.id))).session.id).toBe(first.id);
      const refused = await engine.listCandidates(anonymousReader(), '').catch((error: unknown) => error);
      expect(isFleetError(refused, 'FLEET_UNREACHABLE')).toBe(true);
      expect(String((refused as Error).message)).not.toContain(CLUSTER_PASSWORD);
      await eventually('three failed attempts', () => events.filter((event) => event.kind === 'failed').length >= 3);
      const failures = events.flatMap((event) => (event.kind === 'failed' ? [event] : []));
      expect(failures.slice(0, 3).map((failure) => [failure.code, failure.attempt])).toEqual([
        ['FLEET_UNREACHABLE', 1],
        ['FLEET_UNREACHABLE', 2],
        ['FLEET_UNREACHABLE', 3],
      ]);
      for (const failure of failures) {
        expect(failure.retryInMs).toBeLessThanOrEqual(80);
        expect(failure.message).not.toContain(CLUSTER_PASSWORD);
      }
      // Doubling until the cap: the third wait is at least the first's full value (jitter takes at most a quarter off).
      expect((failures[2]?.retryInMs ?? 0) >= 0.75 * 80).toBe(true);
      await gate.on();
      await eventually('the publish after the server came back', () => events.some((event) => event.kind === 'published'));
      expect(await publishedIds(database)).toEqual(sortedIds(indexes));
      const local = await createEngine({ root, compression: 'zstd', workers: false, corpus: { watch: false } });
      try {
        expect(await engine.listCandidates(anonymousReader(), 'a', 50)).toEqual(await local.listCandidates(anonymousReader(), 'a', 50));
        // The server drops every connection (a restart): a query in flight or next fails typed, then the pool recovers.
        await gate.off();
        const cut = await engine.listCandidates(anonymousReader(), '').catch((error: unknown) => error);
        expect(isFleetError(cut, 'FLEET_UNREACHABLE')).toBe(true);
        await gate.on();
        expect(await engine.listCandidates(anonymousReader(), '', 50)).toEqual(await local.listCandidates(anonymousReader(), '', 50));
      } finally {
        await local.close();
      }
    } finally {
      await engine.close();
      await gate.off();
    }
  }, 120_000);

  it('close() ends publishing cleanly: a batch is all or nothing, and the next engine publishes the rest', async () => {
    const database = await fleet.cluster.createDatabase();
    const indexes = SESSIONS.map((_, index) => index);
    const root = rootOf(indexes);
    const engine = await fleetEngine(root, 'closing', fleet.cluster.url(database));
    await engine.close();
    const after = await publishedIds(database);
    expect([0, SESSIONS.length]).toContain(after.length);
    const next = await fleetEngine(root, 'closing', fleet.cluster.url(database));
    try {
      const summary = await next.publishToFleet();
      expect(summary.published + summary.unchanged).toBe(SESSIONS.length);
      expect(await publishedIds(database)).toEqual(sortedIds(indexes));
    } finally {
      await next.close();
    }
  }, 60_000);

  it('without a warm corpus view, a publish of several batches lists the root once, not once per batch of titles', async () => {
    // The regression: each batch's title read listed the whole root again, so a first publish of N sessions cost
    // N / 64 listings of N sessions (4 × 25,000 never finished in 33 minutes).
    const database = await fleet.cluster.createDatabase();
    const root = join(fleet.scratch, 'generated-batches');
    const corpus = { sessions: 200, projects: 9, seed: 29 };
    await writeDshCorpus(root, corpus, 'zstd');
    let listings = 0;
    const events: FleetPublishEvent[] = [];
    const engine = await createEngine({
      root,
      compression: 'zstd',
      workers: false,
      corpus: { watch: false },
      sourceCache: false,
      store: { onListingProgress: (progress) => void (progress.checked === 0 && (listings += 1)) },
      onFleetEvent: (event: FleetPublishEvent) => events.push(event),
      corpusIndex: resolveCorpusIndexConfig(
        { backend: 'postgres', host: 'batches' },
        { SESSIONCTX_DATABASE_URL: fleet.cluster.url(database) },
      ),
    });
    try {
      await eventually('the first publish', () => events.some((event) => event.kind === 'published'));
      const [summary] = events.flatMap((event) => (event.kind === 'published' ? [event.summary] : []));
      expect(summary).toMatchObject({ published: corpus.sessions, unchanged: 0 });
      // 200 artifacts are 4 batches of 64: one listing for the engine's whole first publish, whatever the batches.
      expect(listings).toBe(1);
      // Titles read against that listing are the logs' own (the generator's title fold).
      const rows = await fleet.cluster.sql(database, 'SELECT session_id, title_json FROM sessionctx.artifacts');
      const published = new Map(rows.map((row) => [row['session_id'] as string, row['title_json'] as string | null]));
      for (let index = 0; index < corpus.sessions; index += 1) {
        const session = dshCorpusSession(index, corpus);
        const stored = published.get(session.header.id);
        expect(stored === null || stored === undefined ? undefined : JSON.parse(stored)).toBe(session.title);
      }
    } finally {
      await engine.close();
    }
  }, 120_000);

  it('the sqlite default shares nothing: fleet verbs are refused typed, discovery is local', async () => {
    const engine = await createEngine({ root: ZSTD_ROOT, compression: 'zstd', workers: false, corpus: { watch: false } });
    try {
      expect(engine.fleetCorpusId).toBeUndefined();
      await expect(engine.publishToFleet()).rejects.toMatchObject({ name: 'FleetError', code: 'FLEET_NOT_CONFIGURED' });
      await expect(engine.fleetStatus()).rejects.toMatchObject({ name: 'FleetError', code: 'FLEET_NOT_CONFIGURED' });
      const [first] = CASES;
      if (first === undefined || !Array.isArray(first.result)) throw new Error('no case');
      expect(await engine.listCandidates(targetOf(first.target), first.query, first.limit ?? undefined)).toEqual(first.result);
    } finally {
      await engine.close();
    }
  });
});

/** Every page of the catalog's discovery listing (MCP `resources/list`), following the cursors. */
async function pagesOf(catalog: SessionCatalog): Promise<unknown[]> {
  const pages: unknown[] = [];
  let cursor: string | undefined;
  do {
    const page = await catalog.page(cursor);
    pages.push(page);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return pages;
}
