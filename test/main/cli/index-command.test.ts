/**
 * `sessionctx index build|status|clear` over a copy of the fixture corpus, with the index in the user cache
 * directory (`XDG_CACHE_HOME`, never the root), and the progress bar: drawn on a terminal, silent on a pipe.
 */
import { execFile } from 'node:child_process';
import { appendFileSync, chmodSync, cpSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CliIo } from '../../../src/main/cli/cli-io.js';
import { runCli } from '../../../src/main/cli/run-cli.js';
import { RAW_ROOT, REPO_ROOT } from '../../support/fixtures.js';

const run = promisify(execFile);
const BIN = join(REPO_ROOT, 'dist', 'src', 'main', 'cli', 'bin.js');

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
    const status = (await cli(['index', 'status', '--root', root])) as { indexPath: string };
    expect(status).toMatchObject({ exists: false, entries: 0 });
    expectCacheIndexPath(status.indexPath);
    const rootListing = readdirSync(root).sort();
    const first = (await cli(['index', 'build', '--root', root])) as { sessions: number; fulfilled: number; stats: Record<string, number> };
    expect(first).toMatchObject({ sessions: 14, fulfilled: 14, stats: { full: 14, statOnly: 0 }, indexPath: status.indexPath, note: null });
    expect(await cli(['index', 'status', '--root', root])).toMatchObject({
      exists: true,
      valid: true,
      entries: 14,
      indexPath: status.indexPath,
    });
    expect(statSync(status.indexPath).isFile()).toBe(true);
    // Nothing was written into the root.
    expect(readdirSync(root).sort()).toEqual(rootListing);
    expect(await cli(['index', 'build', '--root', root])).toMatchObject({ stats: { statOnly: 14, full: 0, incremental: 0 } });
    const log = join(root, '--home-dev-projects-webshop--', 'session-9d029d81-e515-48ac-b168-fef7011f3491', 'session.jsonl');
    appendFileSync(
      log,
      '{"type":"session/title","seq":88,"time":1772581600000,"data":{"title":"Renamed by test","messageSeqs":[4],"source":{"kind":"user"}}}\n',
    );
    expect(await cli(['index', 'build', '--root', root])).toMatchObject({ stats: { statOnly: 13, incremental: 1, full: 0 } });
    const { candidates } = (await cli(['sessions', '--root', root, '--query', 'renamed by test'])) as {
      candidates: Array<{ sessionId: string; label: string }>;
    };
    expect(candidates).toEqual([
      expect.objectContaining({ sessionId: 'session-9d029d81-e515-48ac-b168-fef7011f3491', label: 'Renamed by test' }),
    ]);
    expect(await cli(['index', 'clear', '--root', root])).toMatchObject({ removed: true, indexPath: status.indexPath });
    expect(existsSync(status.indexPath)).toBe(false);
    expect(await cli(['index', 'status', '--root', root])).toMatchObject({ exists: false });
    expect(await cli(['index', 'clear', '--root', root])).toMatchObject({ removed: false });
  });

  it('build drops the entries of deleted sessions from the file', async () => {
    await cli(['index', 'build', '--root', root]);
    rmSync(join(root, '--home-dev-projects-webshop--', 'session-9d029d81-e515-48ac-b168-fef7011f3491'), { recursive: true });
    expect(await cli(['index', 'build', '--root', root])).toMatchObject({ sessions: 13, stats: { statOnly: 13, full: 0 } });
    expect(await cli(['index', 'status', '--root', root])).toMatchObject({ valid: true, entries: 13 });
  });

  it('says where the index is in human output, and reports an unwritable cache directory only when asked to build', async () => {
    const human = async (args: string[], env: NodeJS.ProcessEnv): Promise<{ stdout: string; stderr: string }> =>
      run(process.execPath, [BIN, ...args], { env: { ...process.env, ...env } });
    const { indexPath } = (await cli(['index', 'status', '--root', root])) as { indexPath: string };
    expect((await human(['index', 'status', '--root', root], { XDG_CACHE_HOME: cacheHome })).stdout).toBe(
      `no title index at ${indexPath}; run sessionctx index build --root ${root}\n`,
    );
    const built = await human(['index', 'build', '--root', root], { XDG_CACHE_HOME: cacheHome });
    expect(built.stdout).toContain(`index file: ${indexPath}\n`);
    const reported = (await human(['index', 'status', '--root', root], { XDG_CACHE_HOME: cacheHome })).stdout;
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
    const { indexPath } = (await cli(['index', 'build', '--root', root])) as { indexPath: string };
    appendFileSync(indexPath, 'garbage');
    expect(await cli(['index', 'status', '--root', root])).toMatchObject({ exists: true, valid: false });
    expect(await cli(['index', 'build', '--root', root])).toMatchObject({ fulfilled: 14, stats: { full: 14 } });
    expect(await cli(['index', 'status', '--root', root])).toMatchObject({ valid: true, entries: 14 });
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
    expect(tty.err.join('')).toMatch(/\rindexing titles \[#+\] 14\/14\n$/u);
    const pipe = capture(false);
    expect(await runCli(['index', 'build', '--root', root], pipe.io)).toBe(0);
    expect(pipe.err.join('')).toBe('');
    const usage = capture(false);
    expect(await runCli(['index', 'rebuild', '--root', root, '--json'], usage.io)).toBe(2);
    expect(JSON.parse(usage.out.join('')).error.code).toBe('CLI_USAGE');
  });
});
