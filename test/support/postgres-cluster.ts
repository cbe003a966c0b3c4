/**
 * A real, throwaway PostgreSQL for the fleet tests (issue 29): Debian's `postgresql` binaries run `initdb` in a temp
 * directory and a `postgres` on a free loopback port, as an unprivileged user when the tests run as root (PostgreSQL
 * refuses to run as root). Stopped and removed by {@link PostgresCluster.stop}. No imitation: a machine without the
 * binaries fails the suite loudly with what to install (`.ci/run` installs the package).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/** The superuser every test cluster is created with, and its password (scram-sha-256 over TCP). */
export const CLUSTER_USER = 'sessionctx_test';
/** The password of {@link CLUSTER_USER}; a test of credential hiding looks for it in messages. */
export const CLUSTER_PASSWORD = 'pw-9f3c1b7e-never-print-me';

/** The directory of `initdb` and `postgres`: `SESSIONCTX_TEST_PG_BIN`, else Debian's newest `/usr/lib/postgresql/N/bin`. */
export function postgresBinDir(): string {
  const named = process.env['SESSIONCTX_TEST_PG_BIN'];
  if (named !== undefined && named !== '') return named;
  const base = '/usr/lib/postgresql';
  const versions = existsSync(base)
    ? readdirSync(base)
        .filter((name) => /^\d+$/.test(name) && existsSync(join(base, name, 'bin', 'postgres')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  const newest = versions[0];
  if (newest === undefined) {
    throw new Error(
      'the fleet tests need a real PostgreSQL: no /usr/lib/postgresql/<N>/bin/postgres found (apt-get install -y postgresql, or set SESSIONCTX_TEST_PG_BIN)',
    );
  }
  return join(base, newest, 'bin');
}

/** The uid/gid the server runs as: ours, or `nobody`'s when we are root. */
function serverIdentity(): { readonly uid: number; readonly gid: number; readonly asOther: boolean } {
  if (process.getuid?.() !== 0) return { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0, asOther: false };
  const id = (flag: string): number => Number(spawnSync('id', [flag, 'nobody'], { encoding: 'utf8' }).stdout.trim());
  return { uid: id('-u'), gid: id('-g'), asOther: true };
}

/** `command args…` as the server's user (through `setpriv` when we are root, which execs in place: the pid is the server's). */
function asServerUser(command: string, args: readonly string[]): [string, string[]] {
  const who = serverIdentity();
  if (!who.asOther) return [command, [...args]];
  return ['setpriv', [`--reuid=${who.uid}`, `--regid=${who.gid}`, '--clear-groups', '--', command, ...args]];
}

/** A free loopback TCP port (bound and released; the server binds it right after). */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** A running throwaway cluster. */
export class PostgresCluster {
  readonly #dir: string;
  readonly #server: ChildProcess;
  /** The loopback port the server listens on. */
  readonly port: number;
  #databases = 0;

  private constructor(dir: string, server: ChildProcess, port: number) {
    this.#dir = dir;
    this.#server = server;
    this.port = port;
  }

  /** `initdb` in a new temp directory, `postgres` on a free loopback port; resolves once it accepts connections. */
  static async start(): Promise<PostgresCluster> {
    const bin = postgresBinDir();
    const dir = mkdtempSync(join(tmpdir(), 'sessionctx-pg-'));
    const who = serverIdentity();
    chmodSync(dir, 0o700);
    if (who.asOther) chownSync(dir, who.uid, who.gid);
    const pwfile = join(dir, 'pwfile');
    writeFileSync(pwfile, CLUSTER_PASSWORD, { mode: 0o600 });
    if (who.asOther) chownSync(pwfile, who.uid, who.gid);
    const data = join(dir, 'data');
    const [initCommand, initArgs] = asServerUser(join(bin, 'initdb'), [
      '-D',
      data,
      '-U',
      CLUSTER_USER,
      `--pwfile=${pwfile}`,
      '--auth-host=scram-sha-256',
      '--auth-local=peer',
      '-E',
      'UTF8',
      '--locale=C.UTF-8',
      '--no-sync',
    ]);
    const init = spawnSync(initCommand, initArgs, { encoding: 'utf8', cwd: dir });
    if (init.status !== 0) {
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`initdb failed (${init.status}): ${init.stderr}`);
    }
    const port = await freePort();
    const [serverCommand, serverArgs] = asServerUser(join(bin, 'postgres'), [
      '-D',
      data,
      '-p',
      String(port),
      '-k',
      dir,
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'fsync=off',
      '-c',
      'synchronous_commit=off',
      '-c',
      'full_page_writes=off',
      '-c',
      'max_connections=60',
    ]);
    const server = spawn(serverCommand, serverArgs, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    server.stderr?.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-4000);
    });
    const cluster = new PostgresCluster(dir, server, port);
    const deadline = Date.now() + 30_000;
    for (;;) {
      if (server.exitCode !== null) {
        rmSync(dir, { recursive: true, force: true });
        throw new Error(`postgres exited with ${server.exitCode}: ${stderr}`);
      }
      try {
        const client = new pg.Client(cluster.#config('postgres'));
        await client.connect();
        await client.end();
        return cluster;
      } catch (error) {
        if (Date.now() > deadline) {
          await cluster.stop();
          throw new Error(`postgres did not accept connections within 30 s: ${String(error)}; ${stderr}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  }

  #config(database: string): pg.ClientConfig {
    return { host: '127.0.0.1', port: this.port, user: CLUSTER_USER, password: CLUSTER_PASSWORD, database };
  }

  /** The connection URL of `database` on this cluster, with the superuser's credentials. */
  url(database: string, credentials: { user?: string; password?: string } = {}): string {
    const user = encodeURIComponent(credentials.user ?? CLUSTER_USER);
    const password = encodeURIComponent(credentials.password ?? CLUSTER_PASSWORD);
    return `postgresql://${user}:${password}@127.0.0.1:${this.port}/${database}`;
  }

  /** A new empty database (a fresh name per call), returning its name. */
  async createDatabase(prefix = 'fleet'): Promise<string> {
    this.#databases += 1;
    const name = `${prefix}_${this.#databases}`;
    await this.sql('postgres', `CREATE DATABASE ${name}`);
    return name;
  }

  /** Runs one statement on `database` as the superuser and returns its rows. */
  async sql(database: string, text: string, values: unknown[] = []): Promise<Record<string, unknown>[]> {
    const client = new pg.Client(this.#config(database));
    await client.connect();
    try {
      return (await client.query(text, values)).rows as Record<string, unknown>[];
    } finally {
      await client.end();
    }
  }

  /** Fast shutdown of the server (SIGINT), then the temp directory is removed. */
  async stop(): Promise<void> {
    if (this.#server.exitCode === null && this.#server.signalCode === null) {
      const exited = new Promise<void>((resolve) => this.#server.once('exit', () => resolve()));
      this.#server.kill('SIGINT');
      await exited;
    }
    rmSync(this.#dir, { recursive: true, force: true });
  }
}
