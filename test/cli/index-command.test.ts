/**
 * `sessionctx index build|status|clear` over a copy of the fixture corpus, and the progress bar:
 * drawn on a terminal, silent on a pipe.
 */
import { execFile } from 'node:child_process';
import { appendFileSync, chmodSync, cpSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/main/cli/cli-io.js';
import { runCli } from '../../src/main/cli/run-cli.js';
import { RAW_ROOT, REPO_ROOT } from '../support/fixtures.js';

const run = promisify(execFile);
const BIN = join(REPO_ROOT, 'dist', 'src', 'main', 'cli', 'bin.js');

function makeWritable(path: string): void {
  chmodSync(path, statSync(path).isDirectory() ? 0o755 : 0o644);
  if (statSync(path).isDirectory()) for (const entry of readdirSync(path)) makeWritable(join(path, entry));
}

async function cli(args: string[]): Promise<unknown> {
  const { stdout } = await run(process.execPath, [BIN, ...args, '--json']);
  return JSON.parse(stdout);
}

describe('sessionctx index', () => {
  let root: string;
  beforeEach(() => {
    root = join(mkdtempSync(join(tmpdir(), 'sessionctx-index-')), 'sessions');
    cpSync(RAW_ROOT, root, { recursive: true });
    // Not part of the ground truth: a store opened over the fixture root by another test may have left its index there.
    rmSync(join(root, '.sessionctx-title-index.v1'), { force: true });
    makeWritable(root);
  });
  afterEach(() => rmSync(join(root, '..'), { recursive: true, force: true }));

  it('build scans every log once, a second build answers by stat only, an append rescans only that log, clear removes the file', async () => {
    expect(await cli(['index', 'status', '--root', root])).toMatchObject({ exists: false, entries: 0 });
    const first = (await cli(['index', 'build', '--root', root])) as { sessions: number; fulfilled: number; stats: Record<string, number> };
    expect(first).toMatchObject({ sessions: 14, fulfilled: 14, stats: { full: 14, statOnly: 0 } });
    expect(await cli(['index', 'status', '--root', root])).toMatchObject({ exists: true, valid: true, entries: 14 });
    expect(await cli(['index', 'build', '--root', root])).toMatchObject({ stats: { statOnly: 14, full: 0, incremental: 0 } });
    const log = join(root, '--home-dev-projects-webshop--', 'session-9d029d81-e515-48ac-b168-fef7011f3491', 'session.jsonl');
    appendFileSync(log, '{"type":"session/title","seq":88,"time":1772581600000,"data":{"title":"Renamed by test","messageSeqs":[4],"source":{"kind":"user"}}}\n');
    expect(await cli(['index', 'build', '--root', root])).toMatchObject({ stats: { statOnly: 13, incremental: 1, full: 0 } });
    const candidates = (await cli(['sessions', '--root', root, '--query', 'renamed by test'])) as Array<{ sessionId: string; label: string }>;
    expect(candidates).toEqual([expect.objectContaining({ sessionId: 'session-9d029d81-e515-48ac-b168-fef7011f3491', label: 'Renamed by test' })]);
    expect(await cli(['index', 'clear', '--root', root])).toMatchObject({ removed: true });
    expect(await cli(['index', 'status', '--root', root])).toMatchObject({ exists: false });
    expect(await cli(['index', 'clear', '--root', root])).toMatchObject({ removed: false });
  });

  it('a corrupt index file is reported by status and rebuilt by build', async () => {
    await cli(['index', 'build', '--root', root]);
    appendFileSync(join(root, '.sessionctx-title-index.v1'), 'garbage');
    expect(await cli(['index', 'status', '--root', root])).toMatchObject({ exists: true, valid: false });
    expect(await cli(['index', 'build', '--root', root])).toMatchObject({ fulfilled: 14, stats: { full: 14 } });
    expect(await cli(['index', 'status', '--root', root])).toMatchObject({ valid: true, entries: 14 });
  });

  it('draws a progress bar on a terminal and nothing on a pipe; an unknown verb is a usage error', async () => {
    const capture = (isTTY: boolean): { io: CliIo; out: string[]; err: string[] } => {
      const out: string[] = [];
      const err: string[] = [];
      return {
        io: { stdout: { write: (text: string) => out.push(text) }, stderr: { write: (text: string) => err.push(text), isTTY }, env: {}, cwd: root, readStdin: async () => '' },
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
