/**
 * `sessionctx index build|status|clear` over a copy of the fixture corpus, with the index in the user cache
 * directory (`XDG_CACHE_HOME`, never the root), and the progress bar: drawn on a terminal, silent on a pipe.
 */
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import type Sqlite from 'better-sqlite3';
import {
  appendFileSync,
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CliIo } from '../../../../src/main/faces/cli/cli-io.js';
import { runCli } from '../../../../src/main/faces/cli/run-cli.js';
import { RAW_ROOT, REPO_ROOT } from '../../../support/fixtures.js';

const run = promisify(execFile);
const Database = createRequire(import.meta.url)('better-sqlite3') as typeof Sqlite;
const BIN = join(REPO_ROOT, 'dist', 'src', 'main', 'faces', 'cli', 'bin.js');

function makeWritable(path: string): void {
  chmodSync(path, statSync(path).isDirectory() ? 0o755 : 0o644);
  if (statSync(path).isDirectory()) for (const entry of readdirSync(path)) makeWritable(join(path, entry));
}

describe('sessionctx index', () => {
  let root: string;
  let cacheHome: string;
  /** Runs the built CLI with `--json`, its cache directory in this test's temporary `XDG_CACHE_HOME`. */
  async function cli(args: string[]): Promise<unknown> {
    const { stdout } = await run(process.execPath, [BIN, ...args, '--json'], { env: { ...process.env, XDG_CACHE_HOME: cacheHome } });
    return JSON.parse(stdout);
  }
  /** `index <verb> --titles --json`: the title index's report (the `titles` key; `--titles` leaves out the search index). */
  async function titles(args: string[]): Promise<unknown> {
    return ((await cli([...args, '--titles'])) as { titles: unknown }).titles;
  }
  /** Expects `path` to be an index file of this test's cache: `<XDG_CACHE_HOME>/sessionctx/title-index/<16 hex>.v1`. */
  function expectCacheIndexPath(path: string): void {
    expect(dirname(path)).toBe(join(cacheHome, 'sessionctx', 'title-index'));
    expect(basename(path)).toMatch(/^[0-9a-f]{16}\.v1$/u);
  }
  beforeEach(() => {
    const dir = mkdtempSync(join(tmpdir(), 'sessionctx-index-'));
    root = join(dir, 'sessions');
    cacheHome = join(dir, 'cache');
    cpSync(RAW_ROOT, root, { recursive: true });
    // Not part of the ground truth: a store opened over the fixture root by another test may have left its index there.
    rmSync(join(root, '.sessionctx-title-index.v1'), { force: true });
    makeWritable(root);
  });
  afterEach(() => rmSync(join(root, '..'), { recursive: true, force: true }));

  it('build scans every log once, a second build answers by stat only, an append rescans only that log, clear removes the file', async () => {
    const status = (await titles(['index', 'status', '--root', root])) as { indexPath: string };
    expect(status).toMatchObject({ exists: false, entries: 0 });
    expectCacheIndexPath(status.indexPath);
    const rootListing = readdirSync(root).sort();
    const first = (await titles(['index', 'build', '--root', root])) as {
      sessions: number;
      fulfilled: number;
      stats: Record<string, number>;
    };
    expect(first).toMatchObject({ sessions: 14, fulfilled: 14, stats: { full: 14, statOnly: 0 }, indexPath: status.indexPath, note: null });
    expect(await titles(['index', 'status', '--root', root])).toMatchObject({
      exists: true,
      valid: true,
      entries: 14,
      indexPath: status.indexPath,
    });
    expect(statSync(status.indexPath).isFile()).toBe(true);
    // Nothing was written into the root.
    expect(readdirSync(root).sort()).toEqual(rootListing);
    expect(await titles(['index', 'build', '--root', root])).toMatchObject({ stats: { statOnly: 14, full: 0, incremental: 0 } });
    const log = join(root, '--home-dev-projects-webshop--', 'session-9d029d81-e515-48ac-b168-fef7011f3491', 'session.jsonl');
    appendFileSync(
      log,
      '{"type":"session/title","seq":88,"time":1772581600000,"data":{"title":"Renamed by test","messageSeqs":[4],"source":{"kind":"user"}}}\n',
    );
    expect(await titles(['index', 'build', '--root', root])).toMatchObject({ stats: { statOnly: 13, incremental: 1, full: 0 } });
    const { candidates } = (await cli(['sessions', '--root', root, '--query', 'renamed by test'])) as {
      candidates: Array<{ sessionId: string; label: string }>;
    };
    expect(candidates).toEqual([
      expect.objectContaining({ sessionId: 'session-9d029d81-e515-48ac-b168-fef7011f3491', label: 'Renamed by test' }),
    ]);
    expect(await titles(['index', 'clear', '--root', root])).toMatchObject({ removed: true, indexPath: status.indexPath });
    expect(existsSync(status.indexPath)).toBe(false);
    expect(await titles(['index', 'status', '--root', root])).toMatchObject({ exists: false });
    expect(await titles(['index', 'clear', '--root', root])).toMatchObject({ removed: false });
  });

  it('build drops the entries of deleted sessions from the file', async () => {
    await titles(['index', 'build', '--root', root]);
    rmSync(join(root, '--home-dev-projects-webshop--', 'session-9d029d81-e515-48ac-b168-fef7011f3491'), { recursive: true });
    expect(await titles(['index', 'build', '--root', root])).toMatchObject({ sessions: 13, stats: { statOnly: 13, full: 0 } });
    expect(await titles(['index', 'status', '--root', root])).toMatchObject({ valid: true, entries: 13 });
  });

  it('says where the index is in human output, and reports an unwritable cache directory only when asked to build', async () => {
    const human = async (args: string[], env: NodeJS.ProcessEnv): Promise<{ stdout: string; stderr: string }> =>
      run(process.execPath, [BIN, ...args], { env: { ...process.env, ...env } });
    const { indexPath } = (await titles(['index', 'status', '--root', root])) as { indexPath: string };
    expect((await human(['index', 'status', '--titles', '--root', root], { XDG_CACHE_HOME: cacheHome })).stdout).toBe(
      `no title index at ${indexPath}; run sessionctx index build --root ${root}\n`,
    );
    const built = await human(['index', 'build', '--titles', '--root', root], { XDG_CACHE_HOME: cacheHome });
    expect(built.stdout).toContain(`index file: ${indexPath}\n`);
    const reported = (await human(['index', 'status', '--titles', '--root', root], { XDG_CACHE_HOME: cacheHome })).stdout;
    expect(reported.startsWith(`title index ${indexPath}\n14 entries, `)).toBe(true);
    // A cache "directory" that is a file: nothing can be written, so the build fails (exit 1) and says why.
    const blocked = join(root, '..', 'not-a-directory');
    writeFileSync(blocked, '');
    const failing = await human(['index', 'build', '--root', root, '--json'], { XDG_CACHE_HOME: blocked }).then(
      () => undefined,
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
    expect(failing?.code).toBe(1);
    expect(failing?.stderr).toBe('');
    const { error } = JSON.parse(failing?.stdout ?? '') as { error: { code: string; message: string; details: Record<string, unknown> } };
    expect(error.code).toBe('CLI_INDEX_NOT_WRITTEN');
    expect(error.message).toContain('the index was not saved: title index not written to');
    expect(error.details).toMatchObject({ fulfilled: 14 });
  });

  it('a corrupt index file is reported by status and rebuilt by build', async () => {
    const { indexPath } = (await titles(['index', 'build', '--root', root])) as { indexPath: string };
    appendFileSync(indexPath, 'garbage');
    expect(await titles(['index', 'status', '--root', root])).toMatchObject({ exists: true, valid: false });
    expect(await titles(['index', 'build', '--root', root])).toMatchObject({ fulfilled: 14, stats: { full: 14 } });
    expect(await titles(['index', 'status', '--root', root])).toMatchObject({ valid: true, entries: 14 });
  });

  it('draws a progress bar on a terminal and nothing on a pipe; an unknown verb is a usage error', async () => {
    const capture = (isTTY: boolean): { io: CliIo; out: string[]; err: string[] } => {
      const out: string[] = [];
      const err: string[] = [];
      return {
        io: {
          stdout: { write: (text: string) => out.push(text) },
          stderr: { write: (text: string) => err.push(text), isTTY },
          env: { XDG_CACHE_HOME: cacheHome },
          cwd: root,
          readStdin: async () => '',
        },
        out,
        err,
      };
    };
    const tty = capture(true);
    expect(await runCli(['index', 'build', '--root', root], tty.io)).toBe(0);
    // Both indexes without a flag, each with its bar on stderr; stdout has none of it.
    expect(tty.err.join('')).toMatch(
      /\rindexing titles \[#+\] 14\/14\n(.*\r)?indexing sessions \[[#-]+\] 0\/14\r.*indexing sessions \[#+\] 14\/14\n$/su,
    );
    expect(tty.out.join('')).not.toMatch(/indexing|\r/u);
    const pipe = capture(false);
    expect(await runCli(['index', 'build', '--root', root], pipe.io)).toBe(0);
    expect(pipe.err.join('')).toBe('');
    const usage = capture(false);
    expect(await runCli(['index', 'rebuild', '--root', root, '--json'], usage.io)).toBe(2);
    expect(JSON.parse(usage.out.join('')).error.code).toBe('CLI_USAGE');
  });

  describe('the search index (--search)', () => {
    /** The search index file of this test's cache: `<XDG_CACHE_HOME>/sessionctx/search/index.sqlite`. */
    const searchPath = (): string => join(cacheHome, 'sessionctx', 'search', 'index.sqlite');
    /** `index <verb> --search --json`: the search index's report. */
    async function search(args: string[]): Promise<Record<string, unknown>> {
      return ((await cli([...args, '--search'])) as { search: Record<string, unknown> }).search;
    }
    /** A failing run's exit code and `--json` error. */
    async function refused(args: string[]): Promise<{ code: number; error: { code: string; message: string } }> {
      const failure = await run(process.execPath, [BIN, ...args, '--json'], { env: { ...process.env, XDG_CACHE_HOME: cacheHome } }).then(
        () => undefined,
        (error: { code: number; stdout: string }) => error,
      );
      if (failure === undefined) throw new Error(`expected ${args.join(' ')} to fail`);
      return { code: failure.code, error: (JSON.parse(failure.stdout) as { error: { code: string; message: string } }).error };
    }
    /** What the file itself says, read with SQLite and the file header (not through sessionctx). */
    function fileFacts(): { version: number; application: string; sessions: number; documents: number } {
      const header = readFileSync(searchPath()).subarray(0, 100);
      const db = new Database(searchPath(), { readonly: true });
      try {
        const count = (sql: string): number => (db.prepare(sql).get() as { n: number }).n;
        return {
          version: header.readUInt32BE(60),
          application: header.subarray(68, 72).toString('latin1'),
          sessions: count('SELECT count(*) AS n FROM sessions'),
          documents: count('SELECT count(*) AS n FROM docs'),
        };
      } finally {
        db.close();
      }
    }

    it('build, status and clear: the file, its sessions and documents, its schema version; the next search rebuilds', async () => {
      expect(await search(['index', 'status', '--root', root])).toMatchObject({ indexPath: searchPath(), exists: false, sessions: 0 });
      const built = await search(['index', 'build', '--root', root]);
      // The 14 sessions of the fixture root (as the title index lists them), each read whole the first time.
      expect(built).toMatchObject({ indexPath: searchPath(), sessions: 14, rebuilt: 14, unchanged: 0 });
      const facts = fileFacts();
      expect(facts).toMatchObject({ application: 'SCTX', sessions: 14 });
      expect(facts.documents).toBeGreaterThan(14);
      expect(built['documents']).toBe(facts.documents);
      const status = await search(['index', 'status', '--root', root]);
      expect(status).toMatchObject({
        indexPath: searchPath(),
        exists: true,
        schemaVersion: facts.version,
        currentSchemaVersion: facts.version,
        sessions: 14,
        documents: facts.documents,
        roots: 1,
      });
      expect(status['bytes']).toBeGreaterThanOrEqual(statSync(searchPath()).size);
      expect(await search(['index', 'build', '--root', root])).toMatchObject({ sessions: 14, unchanged: 14, rebuilt: 0 });
      expect(await search(['index', 'clear', '--root', root])).toEqual({ indexPath: searchPath(), removed: true });
      expect(existsSync(searchPath())).toBe(false);
      expect(existsSync(`${searchPath()}-wal`)).toBe(false);
      expect(await search(['index', 'status', '--root', root])).toMatchObject({ exists: false });
      expect(existsSync(searchPath())).toBe(false);
      expect(await search(['index', 'clear', '--root', root])).toEqual({ indexPath: searchPath(), removed: false });
      // Without a flag a verb reports both indexes.
      expect(Object.keys((await cli(['index', 'status', '--root', root])) as object).sort()).toEqual(['search', 'titles']);
      // A search after clear rebuilds the file.
      const page = (await cli(['search', 'file watcher', '--root', root])) as { results: unknown[] };
      expect(page.results.length).toBeGreaterThan(0);
      expect(fileFacts().sessions).toBe(14);
    });

    it('says where the search index is in human output', async () => {
      const human = async (args: string[]): Promise<string> =>
        (await run(process.execPath, [BIN, ...args], { env: { ...process.env, XDG_CACHE_HOME: cacheHome } })).stdout;
      expect(await human(['index', 'status', '--search', '--root', root])).toBe(
        `no search index at ${searchPath()}; the next search builds it, or run sessionctx index build --search --root ${root}\n`,
      );
      expect(await human(['index', 'build', '--search', '--root', root])).toMatch(
        new RegExp(`^search index ${searchPath().replaceAll('/', '\\/')}\\n14 sessions, \\d+ documents of `, 'u'),
      );
      expect(await human(['index', 'clear', '--search', '--root', root])).toBe(
        `removed ${searchPath()} (the search index of every root; the next search rebuilds it)\n`,
      );
    });

    it('a file that is not the index is refused by every verb (SEARCH_FOREIGN_DATABASE) and left as it was', async () => {
      mkdirSync(dirname(searchPath()), { recursive: true });
      writeFileSync(searchPath(), 'my notes, not a database');
      for (const verb of ['status', 'build', 'clear']) {
        const { code, error } = await refused(['index', verb, '--search', '--root', root]);
        expect(code).toBe(1);
        expect(error.code).toBe('SEARCH_FOREIGN_DATABASE');
      }
      expect(readFileSync(searchPath(), 'utf8')).toBe('my notes, not a database');
    });

    it('clear waits for another writer and then fails with SEARCH_INDEX_BUSY, leaving the file', async () => {
      await search(['index', 'build', '--root', root]);
      const config = join(root, '..', 'config.json');
      writeFileSync(config, JSON.stringify({ search: { busyTimeoutMs: 100 } }));
      const holder = new Database(searchPath());
      holder.exec('BEGIN EXCLUSIVE');
      try {
        const { code, error } = await refused(['index', 'clear', '--search', '--root', root, '--config', config]);
        expect(code).toBe(1);
        expect(error.code).toBe('SEARCH_INDEX_BUSY');
        expect(existsSync(searchPath())).toBe(true);
      } finally {
        holder.exec('COMMIT');
        holder.close();
      }
      expect(await search(['index', 'clear', '--root', root, '--config', config])).toEqual({ indexPath: searchPath(), removed: true });
    });
  });
});
