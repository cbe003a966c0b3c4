/**
 * Publishing and fleet discovery over a real PostgreSQL (issue 29): simulated hosts, each with its own root (a split
 * of the dsh fixture), publish into one database; the fleet's candidates equal what one local engine over the union
 * of their roots answers, and for the whole fixture what dsh computed (expected/candidates.json). Publishing is
 * incremental, one writer per artifact waits for another, and a publisher killed mid-batch leaves the previous
 * revision of every artifact of its batch.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createEngine } from '../../../../src/main/engine/assembly/create-engine.js';
import { CorpusPublisher } from '../../../../src/main/engine/fleet/corpus-publisher.js';
import { DatabaseUrl } from '../../../../src/main/engine/fleet/database-url.js';
import { FleetDatabase } from '../../../../src/main/engine/fleet/fleet-database.js';
import { containsPattern, fleetCandidates } from '../../../../src/main/engine/fleet/fleet-discovery.js';
import { REPO_ROOT, fixtureSessions, readExpected } from '../../../support/fixtures.js';
import { type CandidateCase, caseOutcomes, targetOf, useFleetFixture } from './fleet-test-fixture.js';

const CASES = readExpected<CandidateCase[]>('candidates.json');
const SESSIONS = fixtureSessions();

const fleet = useFleetFixture('fleet');
const { rootOf } = fleet;

async function openDatabase(name: string): Promise<FleetDatabase> {
  return FleetDatabase.open({ url: new DatabaseUrl(fleet.cluster.url(name)) });
}

/** Publishes `root` as `host` with an in-thread engine. */
async function publishRoot(database: FleetDatabase, host: string, root: string, batchSize?: number) {
  const engine = await createEngine({ root, compression: 'zstd', workers: false });
  try {
    const publisher = new CorpusPublisher({
      database,
      identity: { host, root },
      layout: { root, compression: 'zstd' },
      ...(batchSize === undefined ? {} : { batchSize }),
    });
    return await publisher.publish(engine);
  } finally {
    await engine.close();
  }
}

const outcomes = (ask: (testCase: CandidateCase) => Promise<unknown>): Promise<unknown[]> => caseOutcomes(CASES, ask);

describe('fleet discovery', () => {
  it('escapes LIKE wildcards so a needle matches only itself', () => {
    expect(containsPattern('a%b_c\\d')).toBe('%a\\%b\\_c\\\\d%');
  });

  it('over the whole fixture published by three hosts equals dsh (expected/candidates.json)', async () => {
    const name = await fleet.cluster.createDatabase();
    const database = await openDatabase(name);
    try {
      const thirds = [0, 1, 2].map((host) => SESSIONS.map((_, index) => index).filter((index) => index % 3 === host));
      for (const [host, indexes] of thirds.entries()) await publishRoot(database, `host-${host}`, rootOf(indexes));
      const fleet = await outcomes((testCase) =>
        fleetCandidates(database, targetOf(testCase.target), testCase.query, testCase.limit ?? undefined),
      );
      const expected = CASES.map((testCase) =>
        Array.isArray(testCase.result)
          ? JSON.stringify(testCase.result)
          : { name: testCase.result.error.name, code: testCase.result.error.code, message: testCase.result.error.message },
      );
      expect(fleet).toEqual(expected);
    } finally {
      await database.close();
    }
  }, 120_000);

  it('equals one local engine over the union of the roots, for random splits over up to three hosts (some sessions on none)', async () => {
    const name = await fleet.cluster.createDatabase();
    const database = await openDatabase(name);
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.integer({ min: 0, max: 3 }), { minLength: SESSIONS.length, maxLength: SESSIONS.length }),
          async (placement) => {
            await fleet.cluster.sql(
              name,
              'TRUNCATE sessionctx.documents, sessionctx.search_sessions, sessionctx.sources, sessionctx.artifacts, sessionctx.corpora',
            );
            const union: number[] = [];
            for (const host of [0, 1, 2]) {
              const indexes = placement.flatMap((where, index) => (where === host ? [index] : []));
              union.push(...indexes);
              await publishRoot(database, `host-${host}`, rootOf(indexes));
            }
            const local = await createEngine({ root: rootOf(union), compression: 'zstd', workers: false });
            try {
              const fleet = await outcomes((testCase) =>
                fleetCandidates(database, targetOf(testCase.target), testCase.query, testCase.limit ?? undefined),
              );
              const alone = await outcomes((testCase) =>
                local.listCandidates(targetOf(testCase.target), testCase.query, testCase.limit ?? undefined),
              );
              expect(fleet).toEqual(alone);
            } finally {
              await local.close();
            }
          },
        ),
        { numRuns: 4, seed: 29 },
      );
    } finally {
      await database.close();
    }
  }, 300_000);

  it('lists a session two hosts published from one shared root once, and its copies never take the room of others', async () => {
    const name = await fleet.cluster.createDatabase();
    const database = await openDatabase(name);
    try {
      const root = rootOf(SESSIONS.map((_, index) => index));
      // Two hosts reading one shared root: every session is published by two corpora.
      await publishRoot(database, 'host-a', root);
      await publishRoot(database, 'host-b', root);
      const [copies] = await fleet.cluster.sql(name, 'SELECT count(*)::int AS n FROM sessionctx.artifacts');
      expect(copies?.['n']).toBe(2 * SESSIONS.length);
      const local = await createEngine({ root, compression: 'zstd', workers: false });
      try {
        const cases = CASES.flatMap((testCase) => [testCase, { ...testCase, limit: 1 }, { ...testCase, limit: 3 }]);
        const fleetAnswers = await caseOutcomes(cases, (testCase) =>
          fleetCandidates(database, targetOf(testCase.target), testCase.query, testCase.limit ?? undefined),
        );
        const localAnswers = await caseOutcomes(cases, (testCase) =>
          local.listCandidates(targetOf(testCase.target), testCase.query, testCase.limit ?? undefined),
        );
        expect(fleetAnswers).toEqual(localAnswers);
      } finally {
        await local.close();
      }
    } finally {
      await database.close();
    }
  }, 120_000);
});

describe('publishing', () => {
  it('is incremental: a second publish writes nothing, a touched artifact is written again, a removed one deleted', async () => {
    const name = await fleet.cluster.createDatabase();
    const database = await openDatabase(name);
    try {
      const root = rootOf(SESSIONS.map((_, index) => index));
      const first = await publishRoot(database, 'h', root);
      expect([first.published, first.unchanged, first.removed]).toEqual([SESSIONS.length, 0, 0]);
      const second = await publishRoot(database, 'h', root);
      expect([second.published, second.unchanged, second.removed, second.batches]).toEqual([0, SESSIONS.length, 0, 0]);
      const [touched, gone] = SESSIONS;
      if (touched === undefined || gone === undefined) throw new Error('fixture too small');
      const file = join(root, touched.projectDir, touched.id, 'session.jsonl.zstd');
      utimesSync(file, new Date(1_000_000), new Date(1_000_000));
      rmSync(join(root, gone.projectDir, gone.id), { recursive: true });
      const third = await publishRoot(database, 'h', root);
      expect([third.published, third.unchanged, third.removed]).toEqual([1, SESSIONS.length - 2, 1]);
      const rows = await fleet.cluster.sql(name, 'SELECT session_id FROM sessionctx.artifacts ORDER BY 1');
      expect(rows.map((row) => row['session_id'])).toEqual(
        SESSIONS.map((session) => session.id)
          .filter((id) => id !== gone.id)
          .sort(),
      );
    } finally {
      await database.close();
    }
  }, 120_000);

  it('keeps the previous revision of every artifact of a batch when its publisher is killed mid-batch, and frees its locks', async () => {
    const name = await fleet.cluster.createDatabase();
    const database = await openDatabase(name);
    const holder = new pg.Client({ connectionString: fleet.cluster.url(name) });
    await holder.connect();
    try {
      const root = rootOf(SESSIONS.map((_, index) => index));
      const first = await publishRoot(database, 'h', root);
      const corpusId = first.corpusId;
      const before = await fleet.cluster.sql(name, 'SELECT session_id, revision FROM sessionctx.artifacts ORDER BY 1');
      // A new revision of every artifact, so the child's batch writes all of them.
      for (const session of SESSIONS) {
        utimesSync(join(root, session.projectDir, session.id, 'session.jsonl.zstd'), new Date(2_000_000), new Date(2_000_000));
      }
      // Hold the lock of the last artifact in lock order: the child writes the others, then waits on it, mid-batch.
      const last = SESSIONS.map((session) => session.id)
        .sort()
        .at(-1) as string;
      await holder.query('BEGIN');
      await holder.query('SELECT pg_advisory_xact_lock(hashtext($1), hashtext($2))', [corpusId, last]);
      const child = spawnPublisher(fleet.cluster.url(name), root);
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      await waitForLockWaiter(holder);
      const written = await holder.query(
        `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND granted AND pid <> pg_backend_pid()`,
      );
      // The child holds the locks of the artifacts it already wrote in its open transaction.
      expect(written.rows[0].n).toBe(SESSIONS.length - 1);
      child.kill('SIGKILL');
      await exited;
      await holder.query('COMMIT');
      expect(await fleet.cluster.sql(name, 'SELECT session_id, revision FROM sessionctx.artifacts ORDER BY 1')).toEqual(before);
      // Its locks died with it: a publish now goes through and writes the new revisions.
      const after = await publishRoot(database, 'h', root);
      expect(after.published).toBe(SESSIONS.length);
      const now = await fleet.cluster.sql(name, 'SELECT session_id, revision FROM sessionctx.artifacts ORDER BY 1');
      expect(now.every((row, index) => row['revision'] !== (before[index] as Record<string, unknown>)['revision'])).toBe(true);
    } finally {
      await holder.end();
      await database.close();
    }
  }, 120_000);

  it('lets one writer per artifact at a time: a second publisher of the same corpus waits, then finds the revision written', async () => {
    const name = await fleet.cluster.createDatabase();
    const database = await openDatabase(name);
    const other = await openDatabase(name);
    const holder = new pg.Client({ connectionString: fleet.cluster.url(name) });
    await holder.connect();
    try {
      const root = rootOf([0]);
      const only = SESSIONS[0]?.id as string;
      const corpusId = new CorpusPublisher({ database, identity: { host: 'h', root }, layout: { root, compression: 'zstd' } }).corpusId;
      await holder.query('BEGIN');
      await holder.query('SELECT pg_advisory_xact_lock(hashtext($1), hashtext($2))', [corpusId, only]);
      const waiting = publishRoot(database, 'h', root);
      await waitForLockWaiter(holder);
      expect(await fleet.cluster.sql(name, 'SELECT count(*)::int AS n FROM sessionctx.artifacts')).toEqual([{ n: 0 }]);
      await holder.query('COMMIT');
      expect((await waiting).published).toBe(1);
      expect((await publishRoot(other, 'h', root)).published).toBe(0);
      expect(await fleet.cluster.sql(name, 'SELECT count(*)::int AS n FROM sessionctx.artifacts')).toEqual([{ n: 1 }]);
    } finally {
      await holder.end();
      await database.close();
      await other.close();
    }
  }, 120_000);
});

/** Waits until some other backend waits for an advisory lock (bounded: 30 s). */
async function waitForLockWaiter(client: pg.Client): Promise<void> {
  for (let attempt = 0; attempt < 600; attempt += 1) {
    const rows = await client.query(`SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`);
    if (rows.rowCount !== null && rows.rowCount > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('no publisher came to wait on the held lock within 30 s');
}

/** A child process that publishes `root` as host `h` (batch of every artifact) into the database at `url`. */
function spawnPublisher(url: string, root: string) {
  const dir = mkdtempSync(join(fleet.scratch, 'child-'));
  const file = join(dir, 'publish.mjs');
  const module = (path: string) => JSON.stringify(pathToFileURL(join(REPO_ROOT, 'dist', path)).href);
  writeFileSync(
    file,
    `import { createEngine } from ${module('src/main/engine/assembly/create-engine.js')};
import { CorpusPublisher } from ${module('src/main/engine/fleet/corpus-publisher.js')};
import { DatabaseUrl } from ${module('src/main/engine/fleet/database-url.js')};
import { FleetDatabase } from ${module('src/main/engine/fleet/fleet-database.js')};
const [url, root] = process.argv.slice(2);
const database = await FleetDatabase.open({ url: new DatabaseUrl(url) });
const engine = await createEngine({ root, compression: 'zstd', workers: false });
await new CorpusPublisher({ database, identity: { host: 'h', root }, layout: { root, compression: 'zstd' } }).publish(engine);
`,
  );
  return spawn(process.execPath, [file, url, root], { stdio: ['ignore', 'inherit', 'inherit'] });
}
