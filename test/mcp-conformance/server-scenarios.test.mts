// The official MCP conformance suite (@modelcontextprotocol/conformance, its own CLI, headless) against
// `sessionctx mcp --http` started from the repository's build on a copy of the dsh fixture. Every server scenario that
// does not need the suite's own fixture tools (test_*), prompts (test_*) or resources (test://…) runs, each as its own
// test: it must exit 0 and report every check passed with no warning. DNS-rebinding protection is among them.
import { type ChildProcess, spawn } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, '..', '..');
const cli = join(repo, 'dist', 'src', 'main', 'faces', 'cli', 'bin.js');
const suite = join(here, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');

/** The server scenarios of conformance 0.1.16 that need none of the suite's fixtures. */
const SCENARIOS = [
  'server-initialize',
  'ping',
  'logging-set-level',
  'completion-complete',
  'tools-list',
  'resources-list',
  'resources-subscribe',
  'resources-unsubscribe',
  'prompts-list',
  'server-sse-multiple-streams',
  'dns-rebinding-protection',
] as const;

/**
 * The scenarios left out, each needing a fixture of the suite's reference server: tools named test_* (the tools-call-*,
 * json-schema-2020-12, elicitation-* and server-sse-polling scenarios), the resources test://static-text,
 * test://static-binary, test://template/{id}/data, and prompts named test_*.
 */
const FIXTURE_SCENARIOS = [
  'tools-call-simple-text',
  'tools-call-image',
  'tools-call-audio',
  'tools-call-embedded-resource',
  'tools-call-mixed-content',
  'tools-call-with-logging',
  'tools-call-error',
  'tools-call-with-progress',
  'tools-call-sampling',
  'tools-call-elicitation',
  'json-schema-2020-12',
  'elicitation-sep1034-defaults',
  'elicitation-sep1330-enums',
  'server-sse-polling',
  'resources-read-text',
  'resources-read-binary',
  'resources-templates-read',
  'prompts-get-simple',
  'prompts-get-with-args',
  'prompts-get-embedded-resource',
  'prompts-get-with-image',
] as const;

let dir: string;
let server: ChildProcess;
let url: string;

/** Runs one command to its end: its exit status and its output. */
function run(command: string, args: readonly string[], cwd: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' } });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output }));
  });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sessionctx-mcp-conformance-'));
  const root = join(dir, 'root');
  cpSync(join(repo, 'test', 'fixtures', 'dsh-small', 'raw'), root, { recursive: true });
  // The server runs on the main suite's Node (run-tests.mjs names it), else the `node` on PATH.
  server = spawn(process.env['SESSIONCTX_SERVER_NODE'] ?? 'node', [cli, 'mcp', '--http', '--root', root], {
    env: { ...process.env, XDG_CACHE_HOME: join(dir, 'cache'), NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: server.stdout as NodeJS.ReadableStream });
  const first = await new Promise<string>((resolve, reject) => {
    lines.once('line', resolve);
    server.once('exit', (code) => reject(new Error(`sessionctx mcp --http exited (${String(code)}) before printing its URL`)));
  });
  const match = /^sessionctx mcp: (http:\/\/127\.0\.0\.1:\d+\/mcp\?token=[A-Za-z0-9_-]+)$/.exec(first);
  if (match === null) throw new Error(`unexpected first line: ${first}`);
  url = match[1] as string;
});

afterAll(async () => {
  if (server !== undefined && server.exitCode === null) {
    const exited = new Promise((resolve) => server.once('exit', resolve));
    server.kill('SIGTERM');
    await exited;
  }
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
});

describe('the official MCP conformance suite against sessionctx mcp --http', () => {
  it('knows every scenario this file names (a renamed one would silently run nothing)', async () => {
    const { code, output } = await run(process.execPath, [suite, 'list'], dir);
    expect(code).toBe(0);
    const listed = new Set([...output.matchAll(/^\s+- (\S+)/gm)].map((found) => found[1]));
    for (const scenario of [...SCENARIOS, ...FIXTURE_SCENARIOS]) expect(listed.has(scenario), scenario).toBe(true);
  });

  it.each(SCENARIOS)('%s passes every check', async (scenario) => {
    const { code, output } = await run(
      process.execPath,
      [suite, 'server', '--url', url, '--scenario', scenario, '-o', join(dir, 'results')],
      dir,
    );
    const summary = /Passed: (\d+)\/(\d+), (\d+) failed, (\d+) warnings/.exec(output);
    expect(summary, output).not.toBeNull();
    const [, passed, total, failed, warnings] = (summary as RegExpExecArray).map(Number);
    expect({ code, passed, failed, warnings }, output).toEqual({ code: 0, passed: total, failed: 0, warnings: 0 });
    expect(total).toBeGreaterThan(0);
  });
});
