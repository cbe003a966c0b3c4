/**
 * A fleet through the product's faces (issue 29): two hosts, each a directory with its own `sessionctx.config.json`
 * (its root, `corpusIndex: {backend: "postgres", host}`) and `SESSIONCTX_DATABASE_URL` naming one real PostgreSQL,
 * run the built `sessionctx` as a person would. `fleet publish` publishes each root; `fleet status` (text and
 * `--json`) reports both hosts, their corpora and sessions, a lag and the database's size; `sessions --query` and MCP's
 * `find_sessions` on one host find the other host's sessions exactly as a local run over the union of the roots does,
 * and `prepare` cites the other host's session from the database as a local run over the union prepares it; `search`
 * and MCP's `search_sessions` find the sessions of both hosts that a local search over the union finds, with the same
 * labels and mentions.
 * With the server unreachable, a local listing still works (a warning on stderr) and a fleet query fails with
 * `FLEET_UNREACHABLE` (a search too). No output ever carries the password.
 */
import { cpSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeSessionReferenceUri } from '../../src/protocol/uri/session-uri.js';
import { CLI_BIN, runBuiltCli, type CliOutcome } from '../support/cli-process.js';
import { ZSTD_ROOT, fixtureSessions } from '../support/fixtures.js';
import { CLUSTER_PASSWORD, PostgresCluster } from '../support/postgres-cluster.js';

const SESSIONS = fixtureSessions();
const HOSTS = ['host-a', 'host-b'] as const;

let cluster: PostgresCluster;
let scratch: string;
let url: string;
/** Each host's working directory (its config file) and root. */
const hostDirs = new Map<string, { cwd: string; root: string; count: number }>();
let unionRoot: string;

function copySessions(root: string, indexes: readonly number[]): void {
  mkdirSync(root, { recursive: true });
  for (const index of indexes) {
    const session = SESSIONS[index];
    if (session === undefined) continue;
    cpSync(join(ZSTD_ROOT, session.projectDir, session.id), join(root, session.projectDir, session.id), { recursive: true });
  }
}

beforeAll(async () => {
  cluster = await PostgresCluster.start();
  url = cluster.url(await cluster.createDatabase());
  scratch = realpathSync(mkdtempSync(join(tmpdir(), 'sessionctx-fleet-faces-')));
  for (const [position, host] of HOSTS.entries()) {
    const cwd = join(scratch, host);
    const root = join(cwd, 'sessions');
    const indexes = SESSIONS.map((_, index) => index).filter((index) => index % HOSTS.length === position);
    copySessions(root, indexes);
    writeFileSync(join(cwd, 'sessionctx.config.json'), JSON.stringify({ root: './sessions', corpusIndex: { backend: 'postgres', host } }));
    hostDirs.set(host, { cwd, root, count: indexes.length });
  }
  unionRoot = join(scratch, 'union');
  copySessions(
    unionRoot,
    SESSIONS.map((_, index) => index),
  );
}, 60_000);

afterAll(async () => {
  await cluster?.stop();
  if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
});

function hostEnv(databaseUrl = url): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    XDG_CACHE_HOME: join(scratch, 'cache'),
    NO_COLOR: '1',
    SESSIONCTX_DATABASE_URL: databaseUrl,
  };
  delete env['SESSIONCTX_ROOT'];
  delete env['SESSIONCTX_CORPUS_INDEX'];
  return env;
}

/** `sessionctx args…` on `host` (its directory, its config file). */
async function onHost(host: string, args: readonly string[], databaseUrl?: string): Promise<CliOutcome> {
  const dir = hostDirs.get(host);
  if (dir === undefined) throw new Error(`no host ${host}`);
  const outcome = await runBuiltCli(args, { cwd: dir.cwd, env: hostEnv(databaseUrl), timeoutMs: 60_000 });
  expect(`${outcome.stdout}${outcome.stderr}`).not.toContain(CLUSTER_PASSWORD);
  return outcome;
}

describe('a fleet of two hosts through the faces', () => {
  it('fleet publish, then fleet status reports both hosts, their sessions, a lag and the database size', async () => {
    for (const host of HOSTS) {
      const outcome = await onHost(host, ['fleet', 'publish', '--json']);
      expect(outcome.code, outcome.stderr).toBe(0);
      const dir = hostDirs.get(host);
      expect(JSON.parse(outcome.stdout)).toMatchObject({ corpusId: `${host}:${dir?.root}` });
      // Whatever the background publish at start already wrote, the root is in the index now.
      const summary = JSON.parse(outcome.stdout) as { published: number; unchanged: number };
      expect(summary.published + summary.unchanged).toBe(dir?.count);
    }
    const json = await onHost('host-a', ['fleet', 'status', '--json']);
    expect(json.code, json.stderr).toBe(0);
    const status = JSON.parse(json.stdout) as {
      database: string;
      schemaVersion: number;
      sessions: number;
      databaseBytes: number;
      indexBytes: number;
      hosts: Array<{ host: string; corpora: number; artifacts: number; lagMs: number }>;
      corpora: Array<{ corpusId: string; host: string; root: string; artifacts: number; publishedAt: string; lagMs: number }>;
    };
    expect(status.database).toBe(
      `postgresql://${encodeURIComponent('sessionctx_test')}:***@127.0.0.1:${cluster.port}/${url.split('/').pop()}`,
    );
    expect(status.schemaVersion).toBe(4);
    expect(status.sessions).toBe(SESSIONS.length);
    expect(status.databaseBytes).toBeGreaterThan(status.indexBytes);
    expect(status.indexBytes).toBeGreaterThan(0);
    expect(status.hosts.map(({ host, corpora, artifacts }) => ({ host, corpora, artifacts }))).toEqual(
      HOSTS.map((host) => ({ host, corpora: 1, artifacts: hostDirs.get(host)?.count })),
    );
    expect(status.corpora.map(({ corpusId, host, root, artifacts }) => ({ corpusId, host, root, artifacts }))).toEqual(
      HOSTS.map((host) => {
        const dir = hostDirs.get(host);
        return { corpusId: `${host}:${dir?.root}`, host, root: dir?.root, artifacts: dir?.count };
      }),
    );
    for (const entry of [...status.hosts, ...status.corpora]) expect(entry.lagMs).toBeGreaterThanOrEqual(0);
    for (const corpus of status.corpora) expect(Number.isNaN(Date.parse(corpus.publishedAt))).toBe(false);

    const text = await onHost('host-b', ['fleet', 'status']);
    expect(text.code, text.stderr).toBe(0);
    const lines = text.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(
      new RegExp(
        `^corpus index: postgresql://sessionctx_test:\\*\\*\\*@127\\.0\\.0\\.1:${cluster.port}/\\w+ \\(schema 4\\): ${SESSIONS.length} sessions from 2 hosts, database \\d`,
      ),
    );
    expect(lines.filter((line) => line.startsWith('host '))).toEqual(
      HOSTS.map(
        (host) =>
          expect.stringMatching(new RegExp(`^host ${host}: 1 corpus, ${hostDirs.get(host)?.count} sessions, lag `)) as unknown as string,
      ),
    );
  }, 120_000);

  it('sessions --query on each host answers over both roots, as a local run over their union does', async () => {
    for (const query of ['', 'a', 'session', 'watcher']) {
      const local = await runBuiltCli(['sessions', '--query', query, '--limit', '100', '--json', '--root', unionRoot], {
        env: hostEnv(),
        cwd: scratch,
      });
      expect(local.code, local.stderr).toBe(0);
      const expected = (JSON.parse(local.stdout) as { candidates: unknown[] }).candidates;
      for (const host of HOSTS) {
        const fleet = await onHost(host, ['sessions', '--query', query, '--limit', '100', '--json']);
        expect(fleet.code, fleet.stderr).toBe(0);
        expect((JSON.parse(fleet.stdout) as { candidates: unknown[] }).candidates).toEqual(expected);
      }
    }
  }, 120_000);

  it("prepare on one host cites the other host's session from the database, as a local run over the union does", async () => {
    const remote = SESSIONS[1];
    if (remote === undefined) throw new Error('fixture too small');
    const message = `compare with @[the other one](${encodeSessionReferenceUri(remote.id)})`;
    const withoutMessageId = (stdout: string): unknown =>
      JSON.parse(stdout, (key, value: unknown) =>
        key === 'id' && typeof value === 'string' && !value.startsWith('session-') ? '<id>' : value,
      );
    const local = await runBuiltCli(['prepare', '--target', 'session-new', message, '--json', '--root', unionRoot], {
      env: hostEnv(),
      cwd: scratch,
    });
    expect(local.code, local.stderr).toBe(0);
    const fleet = await onHost('host-a', ['prepare', '--target', 'session-new', message, '--json']);
    expect(fleet.code, fleet.stderr).toBe(0);
    expect(withoutMessageId(fleet.stdout)).toEqual(withoutMessageId(local.stdout));
    expect(fleet.stdout).toContain(`"capturedThroughSeq"`);
  }, 120_000);

  it('search on each host finds the sessions a local search over the union finds, with the same labels and mentions', async () => {
    /** The sessions of a search's pages as compared (ranking and hits are each backend's own). */
    const sessionsOf = async (run: (cursor?: string) => Promise<CliOutcome>): Promise<unknown[]> => {
      const found: Array<{ sessionId: string }> = [];
      let cursor: string | undefined;
      do {
        const outcome = await run(cursor);
        expect(outcome.code, outcome.stderr).toBe(0);
        const page = JSON.parse(outcome.stdout) as { results: Array<Record<string, unknown>>; nextCursor?: string };
        for (const result of page.results) {
          const { sessionId, label, mention, cwd, createdAt } = result;
          found.push({ sessionId, label, mention, cwd, createdAt } as { sessionId: string });
        }
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      return found.sort((a, b) => (a.sessionId < b.sessionId ? -1 : a.sessionId > b.sessionId ? 1 : 0));
    };
    const page = (cursor?: string) => (cursor === undefined ? [] : ['--cursor', cursor]);
    for (const phrase of ['the', 'watcher', 'CAFÉ', '四舍五入']) {
      const expected = await sessionsOf((cursor) =>
        runBuiltCli(['search', phrase, '--json', '--limit', '5', ...page(cursor), '--root', unionRoot], {
          env: { ...hostEnv(), XDG_CACHE_HOME: join(scratch, 'union-cache') },
          cwd: scratch,
        }),
      );
      for (const host of HOSTS) {
        expect(
          await sessionsOf((cursor) => onHost(host, ['search', phrase, '--json', '--limit', '5', ...page(cursor)])),
          `${host}: ${phrase}`,
        ).toEqual(expected);
      }
    }
    const down = `postgresql://sessionctx_test:${encodeURIComponent(CLUSTER_PASSWORD)}@127.0.0.1:1/nowhere`;
    const unreachable = await onHost('host-a', ['search', 'the', '--json'], down);
    expect(unreachable.code).toBe(1);
    expect((JSON.parse(unreachable.stdout) as { error: { code: string } }).error.code).toBe('FLEET_UNREACHABLE');
  }, 240_000);

  it("MCP on one host finds the other host's sessions and cites one (reference_sessions) as MCP over the union does", async () => {
    const dir = hostDirs.get('host-a');
    if (dir === undefined) throw new Error('no host');
    const connect = async (args: string[], cwd: string): Promise<Client> => {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [CLI_BIN, ...args],
        cwd,
        env: hostEnv() as Record<string, string>,
        stderr: 'ignore',
      });
      const client = new Client({ name: 'fleet-faces', version: '0' });
      await client.connect(transport);
      return client;
    };
    const fleet = await connect(['mcp'], dir.cwd);
    const local = await connect(['mcp', '--root', unionRoot], scratch);
    try {
      // search_sessions: the same sessions as MCP over the union (each backend ranks its own way).
      for (const query of ['watcher', 'the']) {
        const ids = async (client: Client): Promise<string[]> => {
          const found = await client.callTool({ name: 'search_sessions', arguments: { query, limit: 100 } });
          expect(found.isError, JSON.stringify(found.content)).not.toBe(true);
          return (found.structuredContent as { results: Array<{ sessionId: string }> }).results.map((result) => result.sessionId).sort();
        };
        const expected = await ids(local);
        expect(expected.length).toBeGreaterThan(0);
        expect(await ids(fleet)).toEqual(expected);
      }
      const result = await fleet.callTool({ name: 'find_sessions', arguments: { query: '', limit: 100 } });
      const { sessions } = result.structuredContent as { sessions: Array<{ sessionId: string }> };
      expect(sessions.map((session) => session.sessionId).sort()).toEqual(SESSIONS.map((session) => session.id).sort());
      // SESSIONS[1] is host-b's: host-a names it by URI and by id, and cites it from the database.
      const remote = SESSIONS[1]?.id as string;
      for (const name of [encodeSessionReferenceUri(remote), remote]) {
        const cited = await fleet.callTool({ name: 'reference_sessions', arguments: { sessions: [name] } });
        const expected = await local.callTool({ name: 'reference_sessions', arguments: { sessions: [name] } });
        expect(cited.isError, JSON.stringify(cited.content)).not.toBe(true);
        expect(cited.structuredContent).toEqual(expected.structuredContent);
      }
    } finally {
      await fleet.close();
      await local.close();
    }
  }, 120_000);

  it('with the server unreachable: the local listing works with a warning, a fleet query fails FLEET_UNREACHABLE', async () => {
    const down = `postgresql://sessionctx_test:${encodeURIComponent(CLUSTER_PASSWORD)}@127.0.0.1:1/nowhere`;
    const listing = await onHost('host-a', ['sessions', '--json'], down);
    expect(listing.code, listing.stderr).toBe(0);
    expect((JSON.parse(listing.stdout) as { sessions: unknown[] }).sessions).toHaveLength(hostDirs.get('host-a')?.count ?? -1);
    expect(listing.stderr).toMatch(/corpus index: publishing failed \(FLEET_UNREACHABLE: .*\); retrying in \d+ s, local work goes on/);
    const query = await onHost('host-a', ['sessions', '--query', 'a', '--json'], down);
    expect(query.code).toBe(1);
    expect((JSON.parse(query.stdout) as { error: { code: string } }).error.code).toBe('FLEET_UNREACHABLE');
  }, 120_000);
});
