/**
 * Start-up (issue 26 item 6): an engine loads only the task runner it uses. The built CLI runs `sessions` in a child
 * process whose module loader records every module it loads (a `node:module` load hook); the pool's engine must not
 * load the in-thread task modules nor the DCP pipeline, the in-thread engine must not load piscina, and both list the sessions (first use
 * of the runner each loaded is correct).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_BIN } from '../../../support/cli-process.js';
import { fixtureSessions, ZSTD_ROOT } from '../../../support/fixtures.js';

const run = promisify(execFile);
let dir: string;
let register: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'sessionctx-modules-'));
  const hooks = join(dir, 'hooks.mjs');
  // Every loaded module's URL, one line each, on standard error (the child's stdout stays the command's).
  writeFileSync(
    hooks,
    "export async function load(url, context, next) { process._rawDebug('loaded ' + url); return next(url, context); }\n",
  );
  register = join(dir, 'register.mjs');
  writeFileSync(register, `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function loadedBy(args: readonly string[], home = join(dir, 'home')): Promise<{ modules: string[]; stdout: string }> {
  const { stdout, stderr } = await run(process.execPath, ['--import', register, CLI_BIN, ...args], {
    env: { ...process.env, HOME: home, XDG_CACHE_HOME: join(home, '.cache'), NO_COLOR: '1' },
    maxBuffer: 16 * 1024 * 1024,
  });
  const modules = stderr
    .split('\n')
    .filter((line) => line.startsWith('loaded '))
    .map((line) => line.slice('loaded '.length));
  return { modules, stdout };
}

describe('an engine loads only the task runner it uses', () => {
  it('sessions on the pool: no in-thread task module; the listing is whole', async () => {
    const { modules, stdout } = await loadedBy(['sessions', '--root', ZSTD_ROOT, '--json']);
    expect(modules.some((url) => url.includes('/dist/src/main/faces/cli/commands/sessions-command.js'))).toBe(true);
    // The task functions the in-thread runner serves (the pool's threads load them, never this one).
    const tasks = ['read-source', 'inspect-log', 'observe-titles', 'dcp-ledger'].map((task) => `/dist/src/workers/tasks/${task}.js`);
    expect(modules.filter((url) => tasks.some((task) => url.endsWith(task)))).toEqual([]);
    expect(modules.filter((url) => url.includes('/engine/pool/in-thread-runner.js'))).toEqual([]);
    // Nor the DCP pipeline, which only a DCP summary (the Web's Context view) or a dcp command needs.
    expect(modules.filter((url) => url.includes('/dist/src/main/engine/dcp/'))).toEqual([]);
    expect((JSON.parse(stdout) as { sessions: unknown[] }).sessions).toHaveLength(fixtureSessions().length);
  });

  it('show --no-workers: the in-thread runner serves its task; no piscina, no pool module', async () => {
    const id = fixtureSessions()[0]?.id ?? '';
    const { modules, stdout } = await loadedBy(['show', id, '--root', ZSTD_ROOT, '--json', '--no-workers'], join(dir, 'cold-home'));
    expect(modules.some((url) => url.includes('/engine/pool/in-thread-runner.js'))).toBe(true);
    expect(modules.filter((url) => url.includes('/node_modules/piscina/'))).toEqual([]);
    expect(modules.filter((url) => url.includes('/engine/pool/worker-pool.js'))).toEqual([]);
    expect((JSON.parse(stdout) as { session: { id: string } }).session.id).toBe(id);
  });

  it('sessions over a warm title index loads no task runner, no reference service and no native msgpack probe', async () => {
    // The first run builds the title index (its titles come from tasks); the second answers from it and runs none.
    const home = join(dir, 'warm-home');
    await loadedBy(['sessions', '--root', ZSTD_ROOT, '--json'], home);
    for (const workers of [[], ['--no-workers']]) {
      const { modules, stdout } = await loadedBy(['sessions', '--root', ZSTD_ROOT, '--json', ...workers], home);
      expect(modules.filter((url) => url.includes('/node_modules/piscina/'))).toEqual([]);
      expect(modules.filter((url) => /\/engine\/pool\/(worker-pool|in-thread-runner)\.js$/.test(url))).toEqual([]);
      expect(modules.filter((url) => /\/engine\/(reference\/session-reference-service|pool\/pool-source-renderer)\.js$/.test(url))).toEqual(
        [],
      );
      // msgpackr's Node entry probes the C library for its native extractor; only worker threads load it.
      expect(modules.filter((url) => url.endsWith('/node_modules/msgpackr/node-index.js'))).toEqual([]);
      expect((JSON.parse(stdout) as { sessions: unknown[] }).sessions).toHaveLength(fixtureSessions().length);
    }
  });
});
