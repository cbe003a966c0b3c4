// The MCP tool `search_sessions` (issue 17 item 4) through the SDK's own Client over an in-memory transport and a
// real engine on a copy of the dsh fixture: listed with the other tools, results with URI and mention as structured
// content, invalid arguments as `MCP_INVALID_ARGUMENTS`, the engine's typed failures as `CODE: message`.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type LocalSessionEngine } from '../../../../src/main/engine/assembly/create-engine.js';
import { createSessionMcpServer } from '../../../../src/main/faces/mcp/mcp-server.js';
import { SessionCatalog } from '../../../../src/main/catalog/session-catalog.js';
import { encodeSessionReferenceUri } from '../../../../src/protocol/uri/session-uri.js';
import { formatSessionReferenceMention } from '../../../../src/protocol/uri/mention-formatter.js';
import { RAW_ROOT } from '../../../support/fixtures.js';

let dir: string;
let engine: LocalSessionEngine;
let client: Client;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sessionctx-mcp-search-'));
  const root = join(dir, 'root');
  cpSync(RAW_ROOT, root, { recursive: true });
  engine = await createEngine({
    root,
    workers: false,
    corpus: { watch: false },
    store: { cacheDirectory: join(dir, 'cache') },
  });
  const server = createSessionMcpServer({
    catalog: new SessionCatalog(engine, { pageSize: 50 }),
    version: '0',
    tools: true,
    log: () => undefined,
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  client = new Client({ name: 'search-test', version: '0' });
  await client.connect(clientSide);
});

afterAll(async () => {
  await client.close();
  await engine.close();
  rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
});

interface ToolPage {
  readonly results: ReadonlyArray<{
    sessionId: string;
    label: string;
    uri: string;
    mention: string;
    hits: ReadonlyArray<{ snippet: string; highlights: [number, number][] }>;
  }>;
  readonly nextCursor?: string;
}

describe('search_sessions', () => {
  it('is listed beside find_sessions', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['find_sessions', 'search_sessions', 'reference_sessions']);
  });

  it('returns matching sessions with URI, mention and highlighted hits as structured content', async () => {
    const result = await client.callTool({ name: 'search_sessions', arguments: { query: 'File Watcher', limit: 5 } });
    expect(result.isError).toBeFalsy();
    const page = result.structuredContent as unknown as ToolPage;
    expect(page.results.length).toBeGreaterThan(0);
    for (const found of page.results) {
      expect(found.uri).toBe(encodeSessionReferenceUri(found.sessionId));
      expect(found.mention).toBe(formatSessionReferenceMention({ sessionId: found.sessionId, label: found.label }));
      for (const hit of found.hits)
        for (const [start, end] of hit.highlights) expect(hit.snippet.slice(start, end).toLowerCase()).toBe('file watcher');
    }
    expect(JSON.parse((result.content as Array<{ text: string }>)[0]?.text ?? '')).toEqual(page);
  });

  it('invalid arguments are MCP_INVALID_ARGUMENTS; an engine failure is CODE: message', async () => {
    const missing = await client.callTool({ name: 'search_sessions', arguments: { limit: 3 } });
    expect(missing.isError).toBe(true);
    expect((missing.content as Array<{ text: string }>)[0]?.text).toMatch(/^MCP_INVALID_ARGUMENTS: query/);
    const role = await client.callTool({ name: 'search_sessions', arguments: { query: 'x', roles: ['robot'] } });
    expect((role.content as Array<{ text: string }>)[0]?.text).toMatch(/^MCP_INVALID_ARGUMENTS: roles/);
    const blank = await client.callTool({ name: 'search_sessions', arguments: { query: '   ' } });
    expect(blank.isError).toBe(true);
    expect((blank.content as Array<{ text: string }>)[0]?.text).toBe('MCP_INVALID_ARGUMENTS: query must not be empty');
    // What only the index knows: trigram matching needs 3 characters.
    const short = await client.callTool({ name: 'search_sessions', arguments: { query: '東京' } });
    expect((short.content as Array<{ text: string }>)[0]?.text).toMatch(/^SEARCH_INVALID_QUERY: /);
    const cursor = await client.callTool({ name: 'search_sessions', arguments: { query: 'the', cursor: 'nope' } });
    expect((cursor.content as Array<{ text: string }>)[0]?.text).toMatch(/^SEARCH_INVALID_CURSOR: /);
  });
});
