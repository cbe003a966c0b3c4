/**
 * The shared corpus index's schema, connection failures and configuration (issue 29), against a real PostgreSQL
 * (test/support/postgres-cluster.ts): the program creates its schema with a version row; a database of an unknown
 * version or with foreign tables in our schema is refused with a typed error and left exactly as it was; refused
 * credentials and an unreachable server are typed, and no message, config print or log shows a password.
 */
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { resolveCorpusIndexConfig } from '../../../../src/main/engine/fleet/corpus-index-config.js';
import { DatabaseUrl } from '../../../../src/main/engine/fleet/database-url.js';
import { FleetDatabase } from '../../../../src/main/engine/fleet/fleet-database.js';
import { FleetError } from '../../../../src/main/engine/fleet/fleet-error.js';
import { CLUSTER_PASSWORD } from '../../../support/postgres-cluster.js';
import { useFleetFixture } from './fleet-test-fixture.js';

const fleet = useFleetFixture('fleet-schema');

/** Everything a database holds in the `sessionctx` schema: its tables, their columns, and the version rows. */
async function schemaSnapshot(database: string): Promise<unknown> {
  const columns = await fleet.cluster.sql(
    database,
    `SELECT table_name, column_name, data_type FROM information_schema.columns WHERE table_schema = 'sessionctx' ORDER BY 1, 2`,
  );
  const hasVersion = columns.some((row) => row['table_name'] === 'schema_version');
  const versions = hasVersion ? await fleet.cluster.sql(database, 'SELECT version FROM sessionctx.schema_version') : [];
  const indexes = await fleet.cluster.sql(database, `SELECT indexname FROM pg_indexes WHERE schemaname = 'sessionctx' ORDER BY 1`);
  const extensions = await fleet.cluster.sql(database, 'SELECT extname FROM pg_extension ORDER BY 1');
  return { columns, versions, indexes, extensions };
}

async function openError(url: string): Promise<FleetError> {
  const outcome = await FleetDatabase.open({ url: new DatabaseUrl(url), connectTimeoutMs: 5000 }).then(
    async (database) => {
      await database.close();
      return undefined;
    },
    (error: unknown) => error,
  );
  expect(outcome).toBeInstanceOf(FleetError);
  return outcome as FleetError;
}

describe('schema', () => {
  it('is created on first open with version 4, the trigram and order indexes, the sources and search tables, and opening again changes nothing', async () => {
    const name = await fleet.cluster.createDatabase();
    const database = await FleetDatabase.open({ url: new DatabaseUrl(fleet.cluster.url(name)) });
    await database.close();
    expect(await fleet.cluster.sql(name, 'SELECT version FROM sessionctx.schema_version')).toEqual([{ version: 4 }]);
    const tables = await fleet.cluster.sql(name, `SELECT tablename FROM pg_tables WHERE schemaname = 'sessionctx' ORDER BY 1`);
    expect(tables.map((row) => row['tablename'])).toEqual([
      'artifacts',
      'corpora',
      'documents',
      'schema_version',
      'search_sessions',
      'sources',
    ]);
    const indexes = await fleet.cluster.sql(
      name,
      `SELECT indexdef FROM pg_indexes WHERE schemaname = 'sessionctx' AND indexdef LIKE '%gin_trgm_ops%'`,
    );
    expect(indexes).toHaveLength(5);
    // Discovery's order (version 4): per cwd, and no cwd before the rest, each newest first.
    const ordered = await fleet.cluster.sql(
      name,
      `SELECT indexname FROM pg_indexes WHERE schemaname = 'sessionctx' AND indexdef LIKE '%created_at DESC%' ORDER BY 1`,
    );
    expect(ordered.map((row) => row['indexname'])).toEqual(['artifacts_cwd_created', 'artifacts_rank_created']);
    const before = await schemaSnapshot(name);
    const again = await FleetDatabase.open({ url: new DatabaseUrl(fleet.cluster.url(name)) });
    await again.close();
    expect(await schemaSnapshot(name)).toEqual(before);
  });

  it('refuses a schema of an unknown version with FLEET_SCHEMA_UNKNOWN_VERSION and leaves it as it was', async () => {
    const name = await fleet.cluster.createDatabase();
    await (await FleetDatabase.open({ url: new DatabaseUrl(fleet.cluster.url(name)) })).close();
    await fleet.cluster.sql(name, 'UPDATE sessionctx.schema_version SET version = 5');
    await fleet.cluster.sql(name, `INSERT INTO sessionctx.corpora (corpus_id, host, root) VALUES ('h:/r', 'h', '/r')`);
    const before = await schemaSnapshot(name);
    const corpora = await fleet.cluster.sql(name, 'SELECT * FROM sessionctx.corpora');
    const error = await openError(fleet.cluster.url(name));
    expect(error.code).toBe('FLEET_SCHEMA_UNKNOWN_VERSION');
    expect(error.message).toContain('version 5; this sessionctx knows versions 1 to 4');
    expect(await schemaSnapshot(name)).toEqual(before);
    expect(await fleet.cluster.sql(name, 'SELECT * FROM sessionctx.corpora')).toEqual(corpora);
  });

  it("migrates a version 3 database to version 4 (discovery's order indexes), keeping its rows", async () => {
    const name = await fleet.cluster.createDatabase();
    await (await FleetDatabase.open({ url: new DatabaseUrl(fleet.cluster.url(name)) })).close();
    // Version 3 is version 4 without the two order indexes (the migration only adds them).
    await fleet.cluster.sql(
      name,
      'DROP INDEX sessionctx.artifacts_cwd_created, sessionctx.artifacts_rank_created; UPDATE sessionctx.schema_version SET version = 3',
    );
    await fleet.cluster.sql(name, `INSERT INTO sessionctx.corpora (corpus_id, host, root) VALUES ('h:/r', 'h', '/r')`);
    await (await FleetDatabase.open({ url: new DatabaseUrl(fleet.cluster.url(name)) })).close();
    expect(await fleet.cluster.sql(name, 'SELECT version FROM sessionctx.schema_version')).toEqual([{ version: 4 }]);
    expect(await fleet.cluster.sql(name, "SELECT to_regclass('sessionctx.artifacts_rank_created') IS NOT NULL AS present")).toEqual([
      { present: true },
    ]);
    expect(await fleet.cluster.sql(name, 'SELECT corpus_id FROM sessionctx.corpora')).toEqual([{ corpus_id: 'h:/r' }]);
  });

  it('migrates a version 1 database to version 4, keeping its rows', async () => {
    const name = await fleet.cluster.createDatabase();
    await (await FleetDatabase.open({ url: new DatabaseUrl(fleet.cluster.url(name)) })).close();
    // Version 1 is version 4 without the sources and search tables and the order indexes (the migrations only add them).
    await fleet.cluster.sql(
      name,
      'DROP TABLE sessionctx.documents, sessionctx.search_sessions, sessionctx.sources; DROP INDEX sessionctx.artifacts_cwd_created, sessionctx.artifacts_rank_created; UPDATE sessionctx.schema_version SET version = 1',
    );
    await fleet.cluster.sql(name, `INSERT INTO sessionctx.corpora (corpus_id, host, root) VALUES ('h:/r', 'h', '/r')`);
    const corpora = await fleet.cluster.sql(name, 'SELECT * FROM sessionctx.corpora');
    await (await FleetDatabase.open({ url: new DatabaseUrl(fleet.cluster.url(name)) })).close();
    expect(await fleet.cluster.sql(name, 'SELECT version FROM sessionctx.schema_version')).toEqual([{ version: 4 }]);
    expect(await fleet.cluster.sql(name, "SELECT to_regclass('sessionctx.sources') IS NOT NULL AS present")).toEqual([{ present: true }]);
    expect(await fleet.cluster.sql(name, "SELECT to_regclass('sessionctx.documents') IS NOT NULL AS present")).toEqual([{ present: true }]);
    expect(await fleet.cluster.sql(name, 'SELECT * FROM sessionctx.corpora')).toEqual(corpora);
  });

  it('refuses foreign tables beside ours with FLEET_SCHEMA_FOREIGN_TABLES and leaves the database as it was', async () => {
    const name = await fleet.cluster.createDatabase();
    await (await FleetDatabase.open({ url: new DatabaseUrl(fleet.cluster.url(name)) })).close();
    await fleet.cluster.sql(name, 'CREATE TABLE sessionctx.not_ours (x int)');
    const before = await schemaSnapshot(name);
    const error = await openError(fleet.cluster.url(name));
    expect(error.code).toBe('FLEET_SCHEMA_FOREIGN_TABLES');
    expect(error.message).toContain('not_ours');
    expect(await schemaSnapshot(name)).toEqual(before);
  });

  it('refuses a sessionctx schema that holds only foreign tables (no version row) and creates nothing in it', async () => {
    const name = await fleet.cluster.createDatabase();
    await fleet.cluster.sql(name, 'CREATE SCHEMA sessionctx; CREATE TABLE sessionctx.artifacts (whatever text)');
    const before = await schemaSnapshot(name);
    const error = await openError(fleet.cluster.url(name));
    expect(error.code).toBe('FLEET_SCHEMA_FOREIGN_TABLES');
    expect(await schemaSnapshot(name)).toEqual(before);
  });
});

describe('connection failures', () => {
  it('names refused credentials FLEET_AUTH_FAILED without the password or the URL', async () => {
    const name = await fleet.cluster.createDatabase();
    const wrong = 'wrong-secret-5d1e0c';
    const error = await openError(fleet.cluster.url(name, { password: wrong }));
    expect(error.code).toBe('FLEET_AUTH_FAILED');
    const everything = `${error.message} ${String(error.stack)} ${inspect(error)} ${JSON.stringify(error)}`;
    expect(everything).not.toContain(wrong);
    expect(everything).not.toContain(CLUSTER_PASSWORD);
    expect(everything).not.toContain(`${fleet.cluster.port}/${name}`);
    expect(error.cause).toBeUndefined();
  });

  it('names a port with no server FLEET_UNREACHABLE without the password', async () => {
    const url = `postgresql://someone:${CLUSTER_PASSWORD}@127.0.0.1:1/none`;
    const error = await openError(url);
    expect(error.code).toBe('FLEET_UNREACHABLE');
    expect(`${error.message} ${inspect(error)}`).not.toContain(CLUSTER_PASSWORD);
  });

  it('names a database that does not exist FLEET_UNREACHABLE', async () => {
    expect((await openError(fleet.cluster.url('no_such_database'))).code).toBe('FLEET_UNREACHABLE');
  });
});

describe('configuration', () => {
  const fileUrl = `postgresql://alice:${CLUSTER_PASSWORD}@db.example:5432/corpus?sslmode=require&password=${CLUSTER_PASSWORD}`;

  it('defaults to the embedded sqlite backend', () => {
    expect(resolveCorpusIndexConfig(undefined, {})).toEqual({ backend: 'sqlite' });
    expect(resolveCorpusIndexConfig({ backend: null }, { SESSIONCTX_DATABASE_URL: fileUrl })).toEqual({ backend: 'sqlite' });
  });

  it('takes the URL from the file, and SESSIONCTX_DATABASE_URL over it', () => {
    const fromFile = resolveCorpusIndexConfig({ backend: 'postgres', databaseUrl: fileUrl, host: 'h1' }, {});
    expect(fromFile.backend === 'postgres' && fromFile.databaseUrlSource).toBe('file');
    expect(fromFile.backend === 'postgres' && fromFile.databaseUrl.reveal()).toBe(fileUrl);
    const envUrl = 'postgres://bob:other@127.0.0.1:5433/x';
    const fromEnv = resolveCorpusIndexConfig(
      { backend: 'postgres', databaseUrl: fileUrl, host: 'h1' },
      { SESSIONCTX_DATABASE_URL: envUrl },
    );
    expect(fromEnv.backend === 'postgres' && [fromEnv.databaseUrlSource, fromEnv.databaseUrl.reveal(), fromEnv.host]).toEqual([
      'env',
      envUrl,
      'h1',
    ]);
  });

  it('never prints the password: String, template, JSON, inspect and console of the resolved config', () => {
    const config = resolveCorpusIndexConfig({ backend: 'postgres', databaseUrl: fileUrl }, {});
    const printed: string[] = [];
    const original = console.log;
    console.log = (...args: unknown[]) => printed.push(args.map((arg) => inspect(arg)).join(' '));
    try {
      console.log(config);
    } finally {
      console.log = original;
    }
    const url = config.backend === 'postgres' ? config.databaseUrl : undefined;
    const texts = [String(url), `${url}`, JSON.stringify(config), inspect(config, { depth: 5 }), ...printed];
    for (const text of texts) {
      expect(text).not.toContain(CLUSTER_PASSWORD);
      expect(text).toContain('db.example');
    }
  });

  it('refuses a bad backend, a missing URL and a non-postgres URL with FLEET_INVALID_CONFIG, never quoting the URL', () => {
    const codeOf = (run: () => unknown): [string, string] => {
      try {
        run();
      } catch (error) {
        return [(error as FleetError).code, (error as FleetError).message];
      }
      throw new Error('expected a throw');
    };
    expect(codeOf(() => resolveCorpusIndexConfig({ backend: 'mysql' }, {}))[0]).toBe('FLEET_INVALID_CONFIG');
    expect(codeOf(() => resolveCorpusIndexConfig({ backend: 'postgres' }, {}))).toEqual([
      'FLEET_INVALID_CONFIG',
      'invalid corpusIndex config: the postgres backend needs corpusIndex.databaseUrl or SESSIONCTX_DATABASE_URL',
    ]);
    const secretUrl = `mysql://u:${CLUSTER_PASSWORD}@h/db`;
    const [code, message] = codeOf(() => resolveCorpusIndexConfig({ backend: 'postgres', databaseUrl: secretUrl }, {}));
    expect(code).toBe('FLEET_INVALID_CONFIG');
    expect(message).not.toContain(CLUSTER_PASSWORD);
    const [envCode, envMessage] = codeOf(() => resolveCorpusIndexConfig({ backend: 'postgres' }, { SESSIONCTX_DATABASE_URL: secretUrl }));
    expect(envCode).toBe('FLEET_INVALID_CONFIG');
    expect(envMessage).not.toContain(CLUSTER_PASSWORD);
  });
});
