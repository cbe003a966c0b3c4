/**
 * Publishing search documents (issue 29 item 3, docs/FLEET.md §7) over a real PostgreSQL, per artifact by the local
 * index's rules (docs/SEARCH.md §3–4). The oracle is the local SQLite index of the same root, built by the engine
 * (`buildSearchIndex`): after every step the database holds exactly its documents (session, seq, role, time, text).
 * Row versions (`xmin`, `ctid`) show what was written: an unchanged artifact nothing, an appended one only its new
 * documents (and the removal of those a compaction shadows), a rebuilt one every document, a deleted one none left.
 * A database at schema version 2 is migrated in place and its next publish fills the documents in.
 */
import { createRequire } from 'node:module';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CorpusPublisher } from '../../../../src/main/engine/fleet/corpus-publisher.js';
import { DatabaseUrl } from '../../../../src/main/engine/fleet/database-url.js';
import { FleetDatabase } from '../../../../src/main/engine/fleet/fleet-database.js';
import type { DatabaseConstructor } from '../../../../src/workers/search/search-database.js';
import { useFleetFixture } from './fleet-test-fixture.js';
import { mulberry32 } from '../../../support/seeded-random.js';
import { appendLines, copySession, hostEngine, searchSource, seededUuid, type SessionCopy } from './fleet-search-fixture.js';

const Sqlite = createRequire(import.meta.url)('better-sqlite3') as DatabaseConstructor;
const fleet = useFleetFixture('fleet-search-publish');

/** One document as both stores are compared: session, seq, role, time and text. */
type Doc = string;

/** The documents the local SQLite index holds (the oracle), sorted. */
function localDocuments(searchDirectory: string): Doc[] {
  const db = new Sqlite(join(searchDirectory, 'index.sqlite'), { readonly: true });
  try {
    const rows = db
      .prepare(
        `SELECT s.session_id AS session, d.seq AS seq, d.role AS role, d.time AS time, f.body AS body
         FROM docs d JOIN sessions s ON s.id = d.session JOIN docs_fts f ON f.rowid = d.id`,
      )
      .all() as { session: string; seq: number; role: string; time: number; body: string }[];
    return rows.map((row) => JSON.stringify([row.session, row.seq, row.role, row.time, row.body])).sort();
  } finally {
    db.close();
  }
}

/** The documents the database holds, sorted. */
async function publishedDocuments(name: string): Promise<Doc[]> {
  const rows = await fleet.cluster.sql(name, 'SELECT session_id, seq, role, time, body_json FROM sessionctx.documents');
  return rows
    .map((row) => JSON.stringify([row['session_id'], row['seq'], row['role'], row['time'], JSON.parse(row['body_json'] as string)]))
    .sort();
}

/** Each document row's version (`xmin`, `ctid`) by session, seq and place. */
async function rowVersions(name: string): Promise<Map<string, string>> {
  const rows = await fleet.cluster.sql(name, 'SELECT session_id, seq, ord, xmin::text AS x, ctid::text AS c FROM sessionctx.documents');
  return new Map(rows.map((row) => [`${row['session_id']}/${row['seq']}/${row['ord']}`, `${row['x']}@${row['c']}`]));
}

function versionsOf(versions: Map<string, string>, id: string): Map<string, string> {
  return new Map([...versions].filter(([key]) => key.startsWith(`${id}/`)));
}

describe('publishing search documents', () => {
  it('unchanged writes nothing, appended only the new documents, rebuilt replaces, deleted removes — always the local index', async () => {
    const name = await fleet.cluster.createDatabase();
    const database = await FleetDatabase.open({ url: new DatabaseUrl(fleet.cluster.url(name)) });
    const root = join(fleet.scratch, 'rules-root');
    const searchDirectory = join(fleet.scratch, 'rules-search');
    const next = mulberry32(29);
    const id = (): string => `session-${seededUuid(next)}`;
    // Fixture 2 has a compaction (its append lands one), 7 is Chinese, 4 has a café cwd.
    const a = copySession(root, 4, id());
    const b = copySession(root, 2, id(), 200);
    const c = copySession(root, 7, id());
    const engine = await hostEngine(root, searchDirectory);
    try {
      const publisher = new CorpusPublisher({ database, identity: { host: 'h', root }, layout: { root, compression: 'none' } });
      const source = searchSource(engine, root);
      const publishAndCompare = async (): Promise<void> => {
        await publisher.publish(source);
        await engine.buildSearchIndex({});
        const local = localDocuments(searchDirectory);
        expect(local.length).toBeGreaterThan(0);
        expect(await publishedDocuments(name)).toEqual(local);
      };
      await publishAndCompare();
      const first = await rowVersions(name);
      for (const copy of [a, b, c]) expect(versionsOf(first, copy.id).size, copy.id).toBeGreaterThan(0);

      // Unchanged: not a row rewritten.
      const summary = await publisher.publish(source);
      expect(summary.published).toBe(0);
      expect(await rowVersions(name)).toEqual(first);

      // Appended (past the compaction of fixture 2): the other sessions' rows untouched, B's kept rows untouched.
      appendLines(b, 400);
      await publishAndCompare();
      const appended = await rowVersions(name);
      expect(versionsOf(appended, a.id)).toEqual(versionsOf(first, a.id));
      expect(versionsOf(appended, c.id)).toEqual(versionsOf(first, c.id));
      const before = versionsOf(first, b.id);
      const after = versionsOf(appended, b.id);
      const kept = [...before].filter(([key]) => after.has(key));
      expect(kept.length).toBeGreaterThan(0);
      for (const [key, version] of kept) expect(after.get(key), key).toBe(version);
      expect([...after.keys()].some((key) => !before.has(key))).toBe(true);

      // Rebuilt (rewritten shorter: not an append): every row of C new, the others untouched.
      rewrite(c, Math.floor(c.lines.length / 2));
      await publishAndCompare();
      const rebuilt = await rowVersions(name);
      for (const [key, version] of versionsOf(rebuilt, c.id)) expect(version, key).not.toBe(first.get(key));
      expect(versionsOf(rebuilt, a.id)).toEqual(versionsOf(first, a.id));
      expect(versionsOf(rebuilt, b.id)).toEqual(after);

      // Deleted: its documents and its search row go with its artifact.
      rmSync(join(a.path, '..'), { recursive: true, force: true });
      await publishAndCompare();
      expect(versionsOf(await rowVersions(name), a.id).size).toBe(0);
      const states = await fleet.cluster.sql(name, 'SELECT session_id FROM sessionctx.search_sessions ORDER BY 1');
      expect(states.map((row) => row['session_id']).sort()).toEqual([b.id, c.id].sort());
    } finally {
      await engine.close();
      await database.close();
    }
  }, 120_000);

  it('migrates a version 2 database (artifacts and sources published, no documents) and its next publish fills every document in', async () => {
    const name = await fleet.cluster.createDatabase();
    const root = join(fleet.scratch, 'migrate-root');
    const searchDirectory = join(fleet.scratch, 'migrate-search');
    const next = mulberry32(2);
    for (const index of [0, 3, 7, 8]) copySession(root, index, `session-${seededUuid(next)}`);
    const engine = await hostEngine(root, searchDirectory);
    try {
      // What a version 2 host left: artifacts (no documents), then the version 3 tables and version 4 indexes gone and the version row at 2.
      const old = await FleetDatabase.open({ url: new DatabaseUrl(fleet.cluster.url(name)) });
      await new CorpusPublisher({ database: old, identity: { host: 'h', root }, layout: { root, compression: 'none' } }).publish(engine);
      await old.close();
      await fleet.cluster.sql(
        name,
        'DROP TABLE sessionctx.documents, sessionctx.search_sessions; DROP INDEX sessionctx.artifacts_cwd_created, sessionctx.artifacts_rank_created; UPDATE sessionctx.schema_version SET version = 2',
      );
      const artifacts = await fleet.cluster.sql(name, 'SELECT session_id, revision, xmin::text AS x FROM sessionctx.artifacts ORDER BY 1');
      expect(artifacts).toHaveLength(4);

      const database = await FleetDatabase.open({ url: new DatabaseUrl(fleet.cluster.url(name)) });
      try {
        expect(await fleet.cluster.sql(name, 'SELECT version FROM sessionctx.schema_version')).toEqual([{ version: 4 }]);
        expect(await fleet.cluster.sql(name, 'SELECT count(*)::int AS n FROM sessionctx.documents')).toEqual([{ n: 0 }]);
        const publisher = new CorpusPublisher({ database, identity: { host: 'h', root }, layout: { root, compression: 'none' } });
        await publisher.publish(searchSource(engine, root));
        await engine.buildSearchIndex({});
        expect(await publishedDocuments(name)).toEqual(localDocuments(searchDirectory));
        // The artifacts were at their revision: their rows are the ones version 2 wrote.
        expect(await fleet.cluster.sql(name, 'SELECT session_id, revision, xmin::text AS x FROM sessionctx.artifacts ORDER BY 1')).toEqual(
          artifacts,
        );
      } finally {
        await database.close();
      }
    } finally {
      await engine.close();
    }
  }, 120_000);
});

/** Rewrites a copy's file with its first `lines` lines (a new, shorter content: not an append). */
function rewrite(copy: SessionCopy, lines: number): void {
  writeFileSync(copy.path, `${copy.lines.slice(0, lines).join('\n')}\n`);
  copy.written = lines;
}
