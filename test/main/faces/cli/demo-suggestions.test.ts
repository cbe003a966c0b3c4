/**
 * The commands the demo suggests ("Keep exploring") run as printed, where they were printed (issue 26): in a
 * checkout `sessionctx` is not on the PATH, so the demo names the executable it ran as (`node dist/src/main/faces/cli/bin.js`
 * from the repository root, its absolute path from elsewhere). Each suggested line is run in `sh` with a PATH that has
 * no `sessionctx`, from the demo's own working directory.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliInvocation } from '../../../../src/main/faces/cli/invocation.js';
import { REPO_ROOT } from '../../../support/fixtures.js';
import { CLI_BIN } from '../../../support/cli-process.js';

const run = promisify(execFile);
let scratch: string;
let env: NodeJS.ProcessEnv;

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'sessionctx-demo-suggestions-'));
  mkdirSync(join(scratch, 'tmp'));
  // Only Node's own directory and the system's: no `sessionctx` anywhere on the PATH.
  env = {
    ...process.env,
    PATH: `${dirname(process.execPath)}:/usr/bin:/bin`,
    TMPDIR: join(scratch, 'tmp'),
    XDG_CACHE_HOME: join(scratch, 'cache'),
    NO_COLOR: '1',
  };
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The suggested command lines of a demo's output, without their trailing notes. */
function suggestions(stdout: string): string[] {
  const lines = stdout.split('\n');
  const at = lines.findIndex((line) => line.startsWith('── Keep exploring'));
  return lines
    .slice(at + 1)
    .filter((line) => line.startsWith('node ') || line.startsWith('sessionctx') || line.startsWith('npx '))
    .map((line) => line.replace(/ {2,}\(.*\)$/, ''));
}

describe('the demo suggests commands that run', () => {
  it.each([
    ['the repository root', () => REPO_ROOT],
    ['another directory', () => scratch],
  ])('from %s', { timeout: 120_000 }, async (_where, cwd) => {
    const root = join(scratch, `kept-${cwd() === REPO_ROOT ? 'repo' : 'other'}`);
    const { stdout } = await run(process.execPath, [CLI_BIN, 'demo', '--root', root], { cwd: cwd(), env, maxBuffer: 16 * 1024 * 1024 });
    const lines = suggestions(stdout);
    expect(lines.length).toBeGreaterThanOrEqual(6);
    for (const line of lines) {
      expect(line.startsWith(`${cliInvocation(CLI_BIN, cwd())} `), line).toBe(true);
      await run('sh', ['-c', line], { cwd: cwd(), env, maxBuffer: 16 * 1024 * 1024 }).catch((error: { code: unknown; stderr: string }) => {
        throw new Error(`\`${line}\` exited ${String(error.code)}: ${error.stderr}`);
      });
    }
  });

  it('names the executable as it can be run', () => {
    expect(cliInvocation('/work/sessionctx/dist/src/main/faces/cli/bin.js', '/work/sessionctx')).toBe(
      'node dist/src/main/faces/cli/bin.js',
    );
    expect(cliInvocation('/work/sessionctx/dist/src/main/faces/cli/bin.js', '/tmp')).toBe(
      'node /work/sessionctx/dist/src/main/faces/cli/bin.js',
    );
    expect(cliInvocation('/home/me/app/node_modules/sessionctx/dist/src/main/faces/cli/bin.js', '/home/me/app')).toBe('npx sessionctx');
    expect(cliInvocation('/usr/local/bin/sessionctx', '/tmp')).toBe('sessionctx');
  });
});
