// The README's registration lines for Claude Code, Codex and opencode, run against the server they describe: each
// names `node /absolute/path/to/sessionctx/dist/src/main/faces/cli/bin.js mcp --root <dir>` (a clone's build); the test puts
// this repository's path in place of the placeholder (this process's `node` for `node`, a fixture copy for the root),
// starts the command as written and lists resources through the SDK's own client, which stands in for the three
// clients. The installed form (`npm install -g ./sessionctx-0.1.0.tgz` or `npm link`, then `sessionctx mcp`) runs
// the file package.json's `bin` names. No block of the section runs `npx` (an unclaimed name under `npx -y` runs
// whoever claims it).
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_BIN } from '../../../support/cli-process.js';
import { REPO_ROOT, ZSTD_ROOT } from '../../../support/fixtures.js';

/** The clone's path as the README writes it, for the reader to replace. */
const CLONE_PLACEHOLDER = '/absolute/path/to/sessionctx';
const PACKAGE = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  bin: Record<string, string>;
};

const README = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
const MCP_SECTION = README.slice(README.indexOf('## MCP server'), README.indexOf('\n## ', README.indexOf('## MCP server') + 1));

/** The first fenced block of `language` in the MCP section whose body contains `marker`. */
function block(language: string, marker: string): string {
  const fences = [...MCP_SECTION.matchAll(/```(\w+)\n([\s\S]*?)\n```/g)];
  const found = fences.find((fence) => fence[1] === language && (fence[2] ?? '').includes(marker));
  if (found === undefined) throw new Error(`no ${language} block with ${marker} in the README's MCP section`);
  return found[2] ?? '';
}

/** The server command line each client is told to start. */
const REGISTRATIONS: Record<string, () => string[]> = {
  'Claude Code': () => {
    const line = block('sh', 'claude mcp add').trim();
    const [, command] = line.split(' -- ');
    expect(line.startsWith('claude mcp add sessionctx -- ')).toBe(true);
    return (command ?? '').split(' ');
  },
  Codex: () => {
    const toml = block('toml', 'mcp_servers.sessionctx');
    const command = JSON.parse(/^command = (.*)$/m.exec(toml)?.[1] ?? 'null') as string;
    const args = JSON.parse(/^args = (.*)$/m.exec(toml)?.[1] ?? 'null') as string[];
    return [command, ...args];
  },
  opencode: () => {
    const config = JSON.parse(block('json', '"mcp"')) as { mcp: { sessionctx: { type: string; command: string[]; enabled: boolean } } };
    expect(config.mcp.sessionctx).toMatchObject({ type: 'local', enabled: true });
    return config.mcp.sessionctx.command;
  },
};

/** The section's fenced blocks. */
function blocks(): string[] {
  return [...MCP_SECTION.matchAll(/```(\w+)\n([\s\S]*?)\n```/g)].map((fence) => fence[2] ?? '');
}

/** Starts `command args` as a stdio MCP server over a copy of the fixture and lists its resources. */
async function listResourcesOf(client: string, command: string, args: string[]): Promise<number> {
  const transport = new StdioClientTransport({
    command,
    args,
    env: { ...(process.env as Record<string, string>), HOME: join(dir, 'home') },
    stderr: 'ignore',
  });
  const sdk = new Client({ name: client, version: '0' });
  await sdk.connect(transport);
  try {
    expect(sdk.getServerVersion()?.name).toBe('sessionctx');
    return (await sdk.listResources()).resources.length;
  } finally {
    await sdk.close();
  }
}

/** The line's `--root <dir>` pointed at the fixture copy. */
function withRoot(line: readonly string[]): string[] {
  const args = [...line];
  const rootAt = args.indexOf('--root');
  expect(rootAt).toBeGreaterThan(0);
  expect(args[rootAt + 1]).toBe('/home/me/.dsh/sessions');
  args[rootAt + 1] = root;
  return args;
}

let dir: string;
let root: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'sessionctx-mcp-reg-'));
  root = join(dir, 'sessions');
  cpSync(ZSTD_ROOT, root, { recursive: true });
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe("the README's MCP registrations", () => {
  for (const [client, commandLine] of Object.entries(REGISTRATIONS)) {
    it(`${client}: the registered clone command starts a server that lists the root's sessions`, async () => {
      const line = commandLine();
      expect(line.slice(0, 3)).toEqual(['node', `${CLONE_PLACEHOLDER}/dist/src/main/faces/cli/bin.js`, 'mcp']);
      const bin = (line[1] as string).replace(CLONE_PLACEHOLDER, REPO_ROOT);
      expect(bin).toBe(CLI_BIN);
      // `node` is this process's node; the rest as the README writes it.
      expect(await listResourcesOf(client, process.execPath, [bin, ...withRoot(line.slice(2))])).toBe(14);
    });
  }

  it('the installed form: the tarball npm pack writes, and `sessionctx` is the bin package.json names', async () => {
    const install = block('sh', 'npm install -g');
    expect(install).toContain(`npm install -g ./${PACKAGE.name}-${PACKAGE.version}.tgz`);
    expect(install).toContain('npm link');
    const claude = install.split('\n').find((entry) => entry.startsWith('claude mcp add sessionctx -- '));
    const line = (claude ?? '').split(' -- ')[1]?.split(' ') ?? [];
    expect(line.slice(0, 2)).toEqual(['sessionctx', 'mcp']);
    // What `npm install -g` and `npm link` put on PATH as `sessionctx`.
    const bin = join(REPO_ROOT, PACKAGE.bin[line[0] as string] as string);
    expect(bin).toBe(CLI_BIN);
    expect(await listResourcesOf('installed', process.execPath, [bin, ...withRoot(line.slice(1))])).toBe(14);
  });

  it('no block of the section runs npx', () => {
    for (const body of blocks()) expect(body).not.toMatch(/\bnpx\b/u);
  });
});
