// One search request, three faces (issue 26): the same requests go to the CLI (`sessionctx search` flags, a child
// process), MCP (`search_sessions` through the SDK's client over a real stdio child) and the Web API
// (`search/sessions` on a real server), and each face accepts exactly the requests the others accept. The expected
// verdicts come from the request rules written out here (SEARCH.md §5, the default search.maxLimit 100), not from
// the schema; the MCP tool's advertised JSON Schema carries the same limit bound.
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalSessionEngine } from '../../../../src/main/engine/assembly/create-engine.js';
import { createEngine } from '../../../../src/main/engine/assembly/create-engine.js';
import { type RunningWebServer, startWebServer } from '../../../../src/main/faces/web/web-server.js';
import { CLI_BIN, runBuiltCli } from '../../../support/cli-process.js';
import { callApi, makeWebFixture, signIn, type WebFixture } from '../../faces/web/web-test-support.js';

/** A request and whether every face must accept it. */
interface Case {
  readonly name: string;
  readonly request: Readonly<Record<string, unknown>>;
  readonly accepted: boolean;
}

const CASES: readonly Case[] = [
  { name: 'a phrase', request: { query: 'file watcher' }, accepted: true },
  { name: 'an age', request: { query: 'file watcher', since: '7d' }, accepted: true },
  { name: 'an ISO date', request: { query: 'file watcher', since: '2026-03-01', until: '2027-01-01T00:00Z' }, accepted: true },
  { name: 'epoch ms as digits', request: { query: 'file watcher', since: '1767225600000' }, accepted: true },
  { name: 'the largest page', request: { query: 'file watcher', limit: 100 }, accepted: true },
  { name: 'two roles', request: { query: 'file watcher', roles: ['user', 'assistant'] }, accepted: true },
  { name: 'a page past maxLimit', request: { query: 'file watcher', limit: 101 }, accepted: false },
  { name: 'limit 500 (the old MCP bound)', request: { query: 'file watcher', limit: 500 }, accepted: false },
  { name: 'limit 0', request: { query: 'file watcher', limit: 0 }, accepted: false },
  { name: 'an empty phrase', request: { query: '' }, accepted: false },
  { name: 'a blank phrase', request: { query: '   ' }, accepted: false },
  { name: 'a word for a time', request: { query: 'file watcher', since: 'yesterday' }, accepted: false },
  { name: 'an unknown role', request: { query: 'file watcher', roles: ['robot'] }, accepted: false },
];

/** The CLI's command line for a request. */
function argvOf(request: Readonly<Record<string, unknown>>): string[] {
  const argv = ['search', String(request['query'])];
  if (request['since'] !== undefined) argv.push('--since', String(request['since']));
  if (request['until'] !== undefined) argv.push('--until', String(request['until']));
  if (request['limit'] !== undefined) argv.push('--limit', String(request['limit']));
  for (const role of (request['roles'] as string[] | undefined) ?? []) argv.push('--role', role);
  return argv;
}

let fixture: WebFixture;
let engine: LocalSessionEngine;
let web: RunningWebServer;
let cookie: string;
let client: Client;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  fixture = await makeWebFixture();
  env = { ...process.env, HOME: join(fixture.root, '..', 'home'), XDG_CACHE_HOME: join(fixture.root, '..', 'cache'), NO_COLOR: '1' };
  engine = await createEngine({ root: fixture.root, workers: false, sourceCache: false, search: { directory: null } });
  web = await startWebServer({ engine, assetsDir: fixture.assetsDir, search: (query, signal) => engine.searchSessions(query, signal) });
  cookie = await signIn(web.port, web.token);
  client = new Client({ name: 'faces-test', version: '0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [CLI_BIN, 'mcp', '--root', fixture.root],
      env: env as Record<string, string>,
    }),
  );
});

afterAll(async () => {
  await client?.close();
  await web?.close();
  await engine?.close();
  await fixture?.cleanup();
});

describe('every face accepts and refuses the same search requests', () => {
  it.each(CASES)('$name', async ({ request, accepted }) => {
    const cli = await runBuiltCli([...argvOf(request), '--root', fixture.root, '--json'], { env });
    const mcp = await client.callTool({ name: 'search_sessions', arguments: request });
    const { status, reply } = await callApi(web.port, cookie, 'search/sessions', request);
    const verdicts = { cli: cli.code === 0, mcp: mcp.isError !== true, web: status === 200 && reply.ok === true };
    expect(verdicts, JSON.stringify({ cli: cli.stdout, mcp: mcp.content, web: reply })).toEqual({
      cli: accepted,
      mcp: accepted,
      web: accepted,
    });
    // A refusal the schema makes is each face's usage or argument error; no face lets it reach the index.
    if (!accepted) {
      expect(cli.code).toBe(2);
      expect((mcp.content as Array<{ text: string }>)[0]?.text).toMatch(/^MCP_INVALID_ARGUMENTS: /);
      // The Web checks with the ceiling bound (1000); a limit past this configuration's maxLimit is the engine's refusal.
      expect(['WEB_INVALID_ARGUMENTS', 'SEARCH_INVALID_QUERY']).toContain(reply.error.code);
    }
  });

  it("MCP advertises the limit bound the faces enforce (the configuration's search.maxLimit)", async () => {
    const { tools } = await client.listTools();
    const search = tools.find((tool) => tool.name === 'search_sessions');
    expect((search?.inputSchema.properties as Record<string, { maximum?: number }>)['limit']?.maximum).toBe(100);
  });
});
