/**
 * Every example a `--help` prints runs (issue 26), in help order, the way a person would paste it: from the
 * repository root, in `sh`, with `sessionctx` on the PATH (the built executable), and `~` a home whose
 * `~/.dsh/sessions` is a copy of the fixture root. Each must exit 0 without an error line. The order matters where
 * the examples say so: `dcp` reads the session `script run` wrote. Servers (`serve`, `mcp --http`) must print their
 * URL, then are stopped; `mcp` on standard input gets a closed input. `claude mcp add … -- CMD` is run as the client
 * would start CMD (a stand-in `claude` on the PATH), with `/abs/path/to/sessionctx` the checkout; `xdg-open` is a
 * stand-in that opens nothing.
 */
import { spawn } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCommandModules } from '../../../../src/main/faces/cli/commands/all-commands.js';
import { RAW_ROOT, REPO_ROOT } from '../../../support/fixtures.js';
import { CLI_BIN } from '../../../support/cli-process.js';
import { PostgresCluster } from '../../../support/postgres-cluster.js';

/** What an example printed and how it ended. */
interface ExampleOutcome {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** How long a server example may take to print its URL, and any other example to finish. */
const EXAMPLE_TIMEOUT_MS = 60_000;

let scratch: string;
let env: NodeJS.ProcessEnv;

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'sessionctx-help-examples-'));
  const home = join(scratch, 'home');
  const bin = join(scratch, 'bin');
  mkdirSync(join(home, '.dsh'), { recursive: true });
  cpSync(RAW_ROOT, join(home, '.dsh', 'sessions'), { recursive: true });
  mkdirSync(bin);
  writeFileSync(join(bin, 'sessionctx'), `#!/bin/sh\nexec "${process.execPath}" "${CLI_BIN}" "$@"\n`);
  // `claude mcp add <name> -- <command…>`: starts the command as the client would (its input closed at once).
  writeFileSync(
    join(bin, 'claude'),
    [
      `#!${process.execPath}`,
      "const { spawnSync } = require('node:child_process');",
      'const args = process.argv.slice(2);',
      "const at = args.indexOf('--');",
      "if (args[0] !== 'mcp' || args[1] !== 'add' || at < 0) { console.error('claude stand-in: expected mcp add <name> -- <command>'); process.exit(64); }",
      `const command = args.slice(at + 1).map((word) => word.replace('/abs/path/to/sessionctx', ${JSON.stringify(REPO_ROOT)}));`,
      "const result = spawnSync(command[0], command.slice(1), { stdio: ['ignore', 'inherit', 'inherit'] });",
      'process.exit(result.status ?? 1);',
      '',
    ].join('\n'),
  );
  writeFileSync(join(bin, 'xdg-open'), '#!/bin/sh\nexit 0\n');
  for (const name of ['sessionctx', 'claude', 'xdg-open']) chmodSync(join(bin, name), 0o755);
  env = {
    ...process.env,
    PATH: `${bin}:${process.env.PATH ?? ''}`,
    HOME: home,
    XDG_CACHE_HOME: join(scratch, 'cache'),
    TMPDIR: join(scratch, 'tmp'),
    NO_COLOR: '1',
  };
  mkdirSync(join(scratch, 'tmp'));
  delete env.SESSIONCTX_ROOT;
  delete env.DSH_HOME;
});
afterAll(async () => {
  await fleetCluster?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

/** The real PostgreSQL the `fleet` examples run against, started by the first of them. */
let fleetCluster: PostgresCluster | undefined;
let fleetEnvironment: NodeJS.ProcessEnv | undefined;

/** The examples' environment with the shared corpus index configured (issue 29), as an operator's host has it. */
async function fleetEnv(): Promise<NodeJS.ProcessEnv> {
  if (fleetEnvironment !== undefined) return fleetEnvironment;
  fleetCluster = await PostgresCluster.start();
  const database = await fleetCluster.createDatabase();
  fleetEnvironment = { ...env, SESSIONCTX_CORPUS_INDEX: 'postgres', SESSIONCTX_DATABASE_URL: fleetCluster.url(database) };
  return fleetEnvironment;
}

/** Whether an example starts a server that runs until it is stopped. */
function isServer(example: string): boolean {
  return /^sessionctx serve\b/.test(example) || /^sessionctx mcp\b.*--http\b/.test(example);
}

/** Runs one example in `sh`; a server is stopped (its process group, SIGTERM) once it printed its URL. */
function runExample(example: string, exampleEnv: NodeJS.ProcessEnv): Promise<ExampleOutcome> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', example], { cwd: REPO_ROOT, env: exampleEnv, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => {
      process.kill(-(child.pid as number), 'SIGKILL');
      reject(new Error(`\`${example}\` did not finish within ${EXAMPLE_TIMEOUT_MS} ms; it printed:\n${stdout}\n${stderr}`));
    }, EXAMPLE_TIMEOUT_MS);
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      if (isServer(example) && /http:\/\/\S+/.test(stdout)) process.kill(-(child.pid as number), 'SIGTERM');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

const modules = await loadCommandModules();
const examples = modules.flatMap((module) =>
  module.definitions.flatMap((definition) => definition.usage.examples.map((example) => ({ command: definition.name.join(' '), example }))),
);

describe('every --help example runs', () => {
  it('there are examples of every command', () => {
    const commands = new Set(examples.map((entry) => entry.command));
    expect([...commands].sort()).toEqual(
      modules.flatMap((module) => module.definitions.map((definition) => definition.name.join(' '))).sort(),
    );
  });

  for (const { command, example } of examples) {
    it(`${command}: ${example}`, { timeout: EXAMPLE_TIMEOUT_MS + 5_000 }, async () => {
      const outcome = await runExample(example, command.startsWith('fleet ') ? await fleetEnv() : env);
      const shown = `\`${example}\` exited ${String(outcome.code)}:\n${outcome.stdout}\n${outcome.stderr}`;
      if (isServer(example)) expect(outcome.stdout, shown).toMatch(/http:\/\/\S+/);
      else expect(outcome.code, shown).toBe(0);
      expect(outcome.stderr, shown).not.toMatch(/sessionctx: error: /);
    });
  }
});
