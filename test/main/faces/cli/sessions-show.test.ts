/**
 * The built `sessionctx` executable on the fixture corpus: `sessions` and `show`, with and without
 * `--json`, and its error contract (JSON error object, exit 1; usage errors exit 2).
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { RAW_ROOT, REPO_ROOT, ZSTD_ROOT, readExpected } from '../../../support/fixtures.js';

const run = promisify(execFile);
const BIN = join(REPO_ROOT, 'dist', 'src', 'main', 'faces', 'cli', 'bin.js');

interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

async function cli(args: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<CliResult> {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, ...args], { env, maxBuffer: 64 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('sessionctx show', () => {
  const surfaces = readExpected<Array<{ session: { id: string } }>>('surfaces.json');

  it.each([
    ['raw', RAW_ROOT],
    ['zstd', ZSTD_ROOT],
  ])('show --json prints exactly the readSurface snapshot of every fixture session (%s)', async (_name, root) => {
    for (const expected of surfaces) {
      const result = await cli(['show', expected.session.id, '--root', root, '--json']);
      expect(result.code, result.stderr).toBe(0);
      expect(JSON.stringify(JSON.parse(result.stdout))).toBe(JSON.stringify(expected));
    }
  });

  it('show --log --json prints the whole balanced log, crash closers included', async () => {
    const result = await cli(['show', 'session-a7eb71e0-a55c-4c81-b989-f0c51c63c83f', '--log', '--json', '--root', RAW_ROOT]);
    expect(result.code).toBe(0);
    const log = JSON.parse(result.stdout) as { session: { id: string }; events: Array<{ seq: number; type: string }> };
    expect(Object.keys(log)).toEqual(['session', 'events']);
    expect(log.events.map((event) => event.seq)).toEqual(Array.from({ length: 419 }, (_, index) => index));
    expect(log.events.at(-1)?.type).toBe('turn/end');
  });

  it('show without --json prints a readable surface', async () => {
    const result = await cli(['show', 'session-9d029d81-e515-48ac-b168-fef7011f3491', '--root', RAW_ROOT]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('session session-9d029d81-e515-48ac-b168-fef7011f3491 [/home/dev/projects/webshop]');
    expect(result.stdout).toMatch(/^#\d+ user: /m);
  });

  it('an unknown session prints the JSON error object and exits 1', async () => {
    const result = await cli(['show', 'session-nope', '--root', RAW_ROOT, '--json']);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toEqual({
      error: { code: 'SESSION_QUERY_SESSION_NOT_FOUND', message: 'session "session-nope" not found' },
    });
  });

  it('usage errors exit 2: missing id, unknown flag, unknown command', async () => {
    expect((await cli(['show', '--root', RAW_ROOT])).code).toBe(2);
    expect((await cli(['show', 'x', '--bogus'])).code).toBe(2);
    const unknown = await cli(['frobnicate', '--json']);
    expect(unknown.code).toBe(2);
    expect(JSON.parse(unknown.stdout).error.code).toBe('CLI_USAGE');
  });
});

describe('sessionctx sessions', () => {
  it('--json lists every header newest first with its folded title', async () => {
    const result = await cli(['sessions', '--root', ZSTD_ROOT, '--json']);
    expect(result.code).toBe(0);
    const { sessions: rows, problems } = JSON.parse(result.stdout) as {
      sessions: Array<{ header: unknown; title: unknown }>;
      problems: unknown[];
    };
    expect(problems).toEqual([]);
    const listing = readExpected<Array<{ header: unknown }>>('listing.json');
    const titles = readExpected<Array<{ value: { title?: unknown } }>>('titles.json');
    expect(rows.map((row) => row.header)).toEqual(listing.map((record) => record.header));
    expect(rows.map((row) => row.title)).toEqual(titles.map((title) => title.value.title ?? null));
  });

  it('uses $DSH_HOME/sessions when no --root is given', async () => {
    const home = mkdtempSync(join(tmpdir(), 'sessionctx-home-'));
    try {
      mkdirSync(join(home, 'sessions'));
      const result = await cli(['sessions', '--json'], { ...process.env, DSH_HOME: home });
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)).toEqual({ sessions: [], problems: [] });
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('a root that does not exist is an error naming it, not an empty list', async () => {
    const missing = join(tmpdir(), 'sessionctx-no-such-root', 'sessions');
    const human = await cli(['sessions', '--root', missing]);
    expect(human.code).toBe(1);
    expect(human.stdout).toBe('');
    expect(human.stderr).toBe(
      `sessionctx: error: session root "${missing}" does not exist (set it with --root, SESSIONCTX_ROOT or the config file) (CLI_ROOT_NOT_FOUND)\n`,
    );
    const json = await cli(['sessions', '--root', missing, '--json']);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toEqual({ error: { code: 'CLI_ROOT_NOT_FOUND', message: expect.stringContaining(missing) } });
  });

  it('prints one readable line per session', async () => {
    const result = await cli(['sessions', '--root', RAW_ROOT]);
    expect(result.code).toBe(0);
    expect(result.stdout.trim().split('\n')).toHaveLength(14);
    expect(result.stdout).toContain('订单总价的四舍五入有问题');
  });
});
