/**
 * The published package works on its own: `npm pack`, installed into an empty project, gives a working
 * `npx sessionctx` (`--version`, `--help`, `sessions --root DIR`). Dependencies come from the npm cache the
 * suite's own install filled (`--prefer-offline`), so the test needs no more network than `npm ci` did.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RAW_ROOT, REPO_ROOT } from '../support/fixtures.js';

const run = promisify(execFile);
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';

describe('the packed tarball', () => {
  let scratch: string;
  let project: string;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'sessionctx-pack-'));
    project = join(scratch, 'project');
    // An empty HOME with the real npm cache, so nothing of the developer's configuration is involved.
    const { stdout: cache } = await run(npm, ['config', 'get', 'cache'], { cwd: REPO_ROOT });
    env = { ...process.env, HOME: join(scratch, 'home'), npm_config_cache: cache.trim(), XDG_CACHE_HOME: join(scratch, 'cache') };
    delete env.SESSIONCTX_ROOT;
    delete env.DSH_HOME;
    const { stdout } = await run(npm, ['pack', '--json', '--pack-destination', scratch], {
      cwd: REPO_ROOT,
      env,
      maxBuffer: 16 * 1024 * 1024,
    });
    const [packed] = JSON.parse(stdout) as Array<{ filename: string }>;
    mkdirSync(project);
    mkdirSync(join(scratch, 'home'));
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'empty-project', version: '1.0.0', private: true }));
    await run(npm, ['install', '--prefer-offline', '--no-audit', '--no-fund', join(scratch, packed!.filename)], {
      cwd: project,
      env,
      maxBuffer: 16 * 1024 * 1024,
    });
  }, 300_000);
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('npx sessionctx --version prints the package version', async () => {
    const { version } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
    const { stdout } = await run(npx, ['--no-install', 'sessionctx', '--version'], { cwd: project, env });
    expect(stdout).toBe(`${version}\n`);
  });

  it('npx sessionctx --help lists the commands', async () => {
    const { stdout } = await run(npx, ['--no-install', 'sessionctx', '--help'], { cwd: project, env });
    for (const command of ['sessions', 'show', 'mention', 'prepare', 'index', 'script', 'dcp', 'config', 'demo'])
      expect(stdout).toContain(`  ${command} `);
  });

  it('npx sessionctx sessions --root DIR lists the fixture sessions', async () => {
    const root = join(scratch, 'root');
    cpSync(RAW_ROOT, root, { recursive: true });
    const { stdout } = await run(npx, ['--no-install', 'sessionctx', 'sessions', '--root', root, '--json'], { cwd: project, env });
    expect((JSON.parse(stdout) as { sessions: unknown[] }).sessions.length).toBe(14);
  });
});
