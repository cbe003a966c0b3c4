// The README's registration lines for Claude Code, Codex and opencode, run against the server they describe: each
// names `npx -y sessionctx mcp --root <dir>`; the test starts that command (the installed package's `sessionctx`
// standing for `npx -y sessionctx`, a fixture copy for the root) and lists resources through the SDK's own client,
// which stands in for the three clients.
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_BIN } from '../../support/cli-process.js';
import { REPO_ROOT, ZSTD_ROOT } from '../../support/fixtures.js';

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
    it(`${client}: the registered command starts a server that lists the root's sessions`, async () => {
      const line = commandLine();
      expect(line.slice(0, 4)).toEqual(['npx', '-y', 'sessionctx', 'mcp']);
      const rootAt = line.indexOf('--root');
      expect(rootAt).toBeGreaterThan(3);
      const args = [...line.slice(3)];
      args[rootAt - 2] = root;
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [CLI_BIN, ...args],
        env: { ...(process.env as Record<string, string>), HOME: join(dir, 'home') },
        stderr: 'ignore',
      });
      const sdk = new Client({ name: client, version: '0' });
      await sdk.connect(transport);
      try {
        expect(sdk.getServerVersion()?.name).toBe('sessionctx');
        expect((await sdk.listResources()).resources).toHaveLength(14);
      } finally {
        await sdk.close();
      }
    });
  }
});
