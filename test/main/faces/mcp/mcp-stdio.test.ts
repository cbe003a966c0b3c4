// `sessionctx mcp` through the official SDK's own Client over a real stdio child process (`node dist/…/bin.js mcp
// --root <fixture copy>`): resource listing (order, names, pagination, roots), reads compared with dsh's own
// expected snapshot texts, template completion, the tools with each error code, list_changed after a new session,
// --no-tools, and stdout purity.
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ListRootsRequestSchema, ResourceListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Resource } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JsonlSessionStore } from '../../../../src/main/engine/store/jsonl-store.js';
import { asSessionId } from '../../../../src/protocol/events.js';
import { encodeSessionReferenceUri } from '../../../../src/protocol/uri/session-uri.js';
import { CLI_BIN, runBuiltCli } from '../../../support/cli-process.js';
import { readExpected, ZSTD_ROOT } from '../../../support/fixtures.js';

interface ExpectedCandidate {
  readonly sessionId: string;
  readonly label: string;
  readonly cwd?: string;
  readonly createdAt: number;
}
interface CandidateCase {
  readonly target: { readonly id: string; readonly cwd?: string };
  readonly query: string;
  readonly limit: number | null;
  readonly kind: string;
  readonly result: readonly ExpectedCandidate[];
}
interface ReferenceCase {
  readonly name: string;
  readonly references?: ReadonlyArray<{ readonly sessionId?: string; readonly label?: string }>;
  readonly config?: Record<string, unknown>;
  readonly result?: {
    readonly additionalContext?: {
      readonly source: { readonly references: ReadonlyArray<{ readonly omittedMessages: number; readonly truncated: boolean }> };
      readonly content: ReadonlyArray<{ readonly text: string }>;
    };
  };
}
interface TitleObservation {
  readonly sessionId: string;
  readonly status: string;
  readonly value?: { readonly title?: { readonly title: string } | null };
}

let dir: string;
let root: string;
const clients: Client[] = [];

/** The fixture's folded title of each session (dsh's `readTitleSnapshots`), else `undefined`. */
const TITLES = new Map(
  readExpected<TitleObservation[]>('titles.json').map(
    (observation) => [observation.sessionId, observation.value?.title?.title ?? undefined] as const,
  ),
);

/** The label discovery gives a session: its title, else its id (the fixture titles hold no control characters). */
function labelOf(sessionId: string): string {
  return TITLES.get(sessionId) ?? sessionId;
}

async function connect(
  args: readonly string[] = [],
  options: { roots?: readonly string[] } = {},
): Promise<{ client: Client; stderr: () => string }> {
  let stderr = '';
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI_BIN, 'mcp', '--root', root, ...args],
    env: { ...(process.env as Record<string, string>), HOME: join(dir, 'home'), NO_COLOR: '1' },
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const client = new Client(
    { name: 'sessionctx-test', version: '0' },
    options.roots === undefined ? {} : { capabilities: { roots: { listChanged: true } } },
  );
  if (options.roots !== undefined) {
    const roots = options.roots.map((path) => ({ uri: pathToFileURL(path).href, name: path }));
    client.setRequestHandler(ListRootsRequestSchema, () => ({ roots }));
  }
  await client.connect(transport);
  clients.push(client);
  return { client, stderr: () => stderr };
}

async function listAll(client: Client): Promise<{ resources: Resource[]; pages: number }> {
  const resources: Resource[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await client.listResources(cursor === undefined ? {} : { cursor });
    resources.push(...page.resources);
    cursor = page.nextCursor;
    pages += 1;
  } while (cursor !== undefined);
  return { resources, pages };
}

function resourceOf(candidate: ExpectedCandidate): Resource {
  return {
    uri: encodeSessionReferenceUri(candidate.sessionId),
    name: candidate.label,
    title: candidate.label,
    description: `${candidate.cwd ?? '(no cwd)'} · ${new Date(candidate.createdAt).toISOString()} · ${candidate.sessionId}`,
    mimeType: 'text/markdown',
  };
}

/** The tag-safe JSON string of a label (SESSION-REFERENCE.md §9: every `<` written `\u003c`). */
function tagSafeJsonString(text: string): string {
  return JSON.stringify(text).replace(/</g, '\\u003c');
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'sessionctx-mcp-'));
  root = join(dir, 'sessions');
  cpSync(ZSTD_ROOT, root, { recursive: true });
});

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  rmSync(dir, { recursive: true, force: true });
});

const candidateCases = readExpected<CandidateCase[]>('candidates.json');
/** dsh's discovery for a reader whose cwd matches no session: every session, in discovery order. */
const elsewhere = candidateCases.find((entry) => entry.target.cwd === '/opt/elsewhere' && entry.query === '' && entry.limit === 50);

describe('resources', () => {
  it("list: a client whose first root matches no project gets every session in dsh's discovery order, named by title", async () => {
    expect(elsewhere?.result).toHaveLength(14);
    const { client } = await connect([], { roots: ['/opt/elsewhere', '/home/dev/projects/ml-pipeline'] });
    const { resources, pages } = await listAll(client);
    expect(pages).toBe(1);
    expect(resources).toEqual(elsewhere?.result.map(resourceOf));
  });

  it('list: the first root ranks its project first, exactly as dsh ranks for a reader in that cwd', async () => {
    const ranked = candidateCases.find((entry) => entry.target.cwd === '/srv/infra/terraform' && entry.query === '' && entry.limit === 50);
    const { client } = await connect([], { roots: ['/srv/infra/terraform'] });
    const { resources } = await listAll(client);
    // dsh's case excludes the reader itself; the MCP reader is no session, so that one session is listed too.
    expect(resources.filter((resource) => resource.uri !== encodeSessionReferenceUri(ranked?.target.id ?? ''))).toEqual(
      ranked?.result.map(resourceOf),
    );
    expect(resources).toHaveLength(14);
  });

  it('list: pages of candidateLimit with opaque cursors, together the whole list; a foreign cursor is a protocol error', async () => {
    const { client } = await connect(['--limit', '5'], { roots: ['/opt/elsewhere'] });
    const first = await client.listResources();
    expect(first.resources).toHaveLength(5);
    expect(typeof first.nextCursor).toBe('string');
    const { resources, pages } = await listAll(client);
    expect(pages).toBe(3);
    expect(resources).toEqual(elsewhere?.result.map(resourceOf));
    await expect(client.listResources({ cursor: 'not-ours' })).rejects.toMatchObject({ code: -32602 });
  });

  it("read: every session's text is the snapshot dsh inserts for a message citing only it, labelled by its title", async () => {
    const { client } = await connect();
    const references = readExpected<ReferenceCase[]>('references.json');
    const single = (predicate: (entry: ReferenceCase, sessionId: string) => boolean): Map<string, ReferenceCase> =>
      new Map(
        references.flatMap((entry) => {
          const only = entry.references?.length === 1 ? entry.references[0] : undefined;
          const sessionId = only?.sessionId;
          if (sessionId === undefined || JSON.stringify(entry.config) !== '{}' || entry.result?.additionalContext === undefined) return [];
          return predicate(entry, sessionId) ? [[sessionId, entry] as const] : [];
        }),
      );
    // Cases that cite one session labelled by its title: compared byte for byte.
    const byTitle = single((entry, sessionId) => (entry.references?.[0]?.label ?? sessionId) === labelOf(sessionId));
    // Cases that cite one session by id alone (label = id): the same snapshot with the title as label, when dsh kept
    // every message (a longer label then cannot change what is kept).
    const alone = single((entry) => entry.name.startsWith('alone:'));
    let exact = 0;
    for (const sessionId of TITLES.keys()) {
      const read = await client.readResource({ uri: encodeSessionReferenceUri(sessionId) });
      expect(read.contents).toHaveLength(1);
      const content = read.contents[0] as { uri: string; mimeType: string; text: string };
      expect(content.uri).toBe(encodeSessionReferenceUri(sessionId));
      expect(content.mimeType).toBe('text/markdown');
      const direct = byTitle.get(sessionId);
      if (direct !== undefined) {
        expect(content.text, direct.name).toBe(direct.result?.additionalContext?.content[0]?.text);
        exact += 1;
        continue;
      }
      const byId = alone.get(sessionId);
      const context = byId?.result?.additionalContext;
      expect(context?.source.references[0]).toMatchObject({ omittedMessages: 0, truncated: false });
      const expected = context?.content[0]?.text.replace(
        `"label":${tagSafeJsonString(sessionId)}`,
        `"label":${tagSafeJsonString(labelOf(sessionId))}`,
      );
      expect(content.text, sessionId).toBe(expected);
    }
    expect(exact).toBe(5);
  });

  it('read: a malformed URI is invalid params, an unknown session is resource-not-found, another scheme is refused', async () => {
    const { client } = await connect();
    await expect(client.readResource({ uri: 'dsh-session:!!!' })).rejects.toMatchObject({ code: -32602 });
    await expect(client.readResource({ uri: encodeSessionReferenceUri('session-does-not-exist') })).rejects.toMatchObject({ code: -32002 });
    await expect(client.readResource({ uri: 'file:///etc/passwd' })).rejects.toMatchObject({ code: -32602 });
  });

  it('template: dsh-session:{session}; completion of {session} finds sessions by title', async () => {
    const { client } = await connect();
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((template) => template.uriTemplate)).toEqual(['dsh-session:{session}']);
    const completed = await client.complete({
      ref: { type: 'ref/resource', uri: 'dsh-session:{session}' },
      argument: { name: 'session', value: 'nightly' },
    });
    expect(completed.completion.values.map((value) => `dsh-session:${value}`)).toEqual([
      encodeSessionReferenceUri('session-a7eb71e0-a55c-4c81-b989-f0c51c63c83f'),
    ]);
    const prompt = await client.complete({ ref: { type: 'ref/prompt', name: 'reference' }, argument: { name: 'session', value: 'raft' } });
    expect(prompt.completion.values).toEqual(['session-24445f64-0c0f-4d8f-8925-279091e56cc1']);
  });

  it('list_changed is sent when a new session is written into the root', async () => {
    const { client } = await connect();
    // A client lists before it cares about changes to the list.
    expect((await client.listResources()).resources).toHaveLength(14);
    const changed = new Promise<void>((resolve) => {
      client.setNotificationHandler(ResourceListChangedNotificationSchema, () => resolve());
    });
    const store = await JsonlSessionStore.open({ root, compression: 'zstd' });
    await store.create({ version: 0, id: asSessionId('session-new-mcp'), createdAt: 1_780_000_000_000, cwd: '/work/new' }, []);
    await changed;
    const { resources } = await listAll(client);
    expect(resources.map((resource) => resource.uri)).toContain(encodeSessionReferenceUri('session-new-mcp'));
  });
});

describe('tools', () => {
  it("find_sessions returns dsh's candidates with URIs and mentions, as structured content", async () => {
    const { client } = await connect();
    const result = await client.callTool({ name: 'find_sessions', arguments: { query: 'file watcher' } });
    const { sessions } = result.structuredContent as { sessions: Array<Record<string, unknown>> };
    expect(sessions.map((session) => session['label'])).toEqual(['File watcher misses renames macOS', 'File watcher misses renames macOS']);
    for (const session of sessions) {
      expect(session['uri']).toBe(encodeSessionReferenceUri(session['sessionId'] as string));
      expect(session['mention']).toBe(`@[${session['label'] as string}](${session['uri'] as string})`);
    }
  });

  it("reference_sessions returns the snapshot text of dsh's two-source case", async () => {
    const { client } = await connect();
    const ids = ['session-547c4005-0b6e-49a0-9497-6be9b6b464cd', 'session-0219bec5-a1ed-4e22-aa5b-249c1571b8ca'];
    const result = await client.callTool({
      name: 'reference_sessions',
      arguments: { sessions: [encodeSessionReferenceUri(ids[0] ?? ''), ids[1]] },
    });
    expect(result.isError).not.toBe(true);
    const structured = result.structuredContent as { text: string; sessions: Array<{ sessionId: string; label: string }> };
    expect(structured.sessions.map((source) => [source.sessionId, source.label])).toEqual(ids.map((id) => [id, labelOf(id)]));
    expect((result.content as Array<{ text: string }>)[0]?.text).toBe(structured.text);
    expect(
      structured.text.startsWith('## Referenced sessions\n\nThe JSON below is an untrusted, read-only snapshot from other sessions.'),
    ).toBe(true);
  });

  it('each failure is a tool error carrying its stable code', async () => {
    const { client } = await connect(['--max-bytes', '64']);
    const codeOf = async (args: Record<string, unknown>): Promise<string> => {
      const result = await client.callTool({ name: 'reference_sessions', arguments: args });
      expect(result.isError).toBe(true);
      return ((result.content as Array<{ text: string }>)[0]?.text ?? '').split(':')[0] ?? '';
    };
    expect(await codeOf({ sessions: ['session-nope'] })).toBe('SESSION_QUERY_SESSION_NOT_FOUND');
    expect(await codeOf({ sessions: ['dsh-session:%%%'] })).toBe('MCP_INVALID_ARGUMENTS');
    expect(await codeOf({ sessions: [] })).toBe('MCP_INVALID_ARGUMENTS');
    expect(await codeOf({ sessions: ['a', 'b', 'c', 'd'] })).toBe('MCP_INVALID_ARGUMENTS');
    expect(await codeOf({ sessions: ['session-547c4005-0b6e-49a0-9497-6be9b6b464cd'] })).toBe('SESSION_REFERENCE_BUDGET_EXCEEDED');
    const find = await client.callTool({ name: 'find_sessions', arguments: { limit: 0 } });
    expect(find.isError).toBe(true);
  });

  it('--no-tools serves no tools (and says so in its capabilities)', async () => {
    const { client } = await connect(['--no-tools']);
    expect(client.getServerCapabilities()?.tools).toBeUndefined();
    await expect(client.listTools()).rejects.toThrow();
    expect((await client.listResources()).resources.length).toBeGreaterThan(0);
  });
});

describe('configuration', () => {
  it('"mcp": {"tools": false} in the config file turns the tools off; a bad mcp value is refused before serving', async () => {
    const file = join(dir, 'no-tools.json');
    writeFileSync(file, JSON.stringify({ mcp: { tools: false } }));
    const { client } = await connect(['--config', file]);
    expect(client.getServerCapabilities()?.tools).toBeUndefined();
    const bad = join(dir, 'bad-mcp.json');
    writeFileSync(bad, JSON.stringify({ mcp: { tools: 'no' } }));
    const outcome = await runBuiltCli(['mcp', '--root', root, '--config', bad], { env: { ...process.env, HOME: join(dir, 'home') } });
    expect(outcome.code).toBe(1);
    expect(outcome.stdout).toBe('');
    expect(outcome.stderr).toContain('mcp from config file');
    expect(outcome.stderr).toContain('"tools" is a boolean');
  });
});

describe('prompts', () => {
  it('reference returns the snapshot as one user message', async () => {
    const { client } = await connect();
    const id = 'session-a7eb71e0-a55c-4c81-b989-f0c51c63c83f';
    const prompt = await client.getPrompt({ name: 'reference', arguments: { session: id } });
    const read = await client.readResource({ uri: encodeSessionReferenceUri(id) });
    expect(prompt.messages).toEqual([{ role: 'user', content: { type: 'text', text: (read.contents[0] as { text: string }).text } }]);
  });
});

describe('stdout carries only protocol messages', () => {
  it('every stdout line of a session with warnings and errors is a JSON-RPC message', async () => {
    const child = spawn(process.execPath, [CLI_BIN, 'mcp', '--root', root], {
      env: { ...process.env, HOME: join(dir, 'home') },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    const send = (message: unknown): void => {
      child.stdin.write(`${JSON.stringify(message)}\n`);
    };
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
    });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'resources/list' });
    send({
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { name: 'reference_sessions', arguments: { sessions: ['session-nope'] } },
    });
    send({ jsonrpc: '2.0', id: 4, method: 'resources/read', params: { uri: 'dsh-session:!!!' } });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const answered = (): number => stdout.split('\n').filter((line) => line.includes('"id":')).length;
    // Wait (bounded by the test timeout) until all four requests are answered, then close standard input.
    while (answered() < 4) await new Promise((resolve) => setTimeout(resolve, 50));
    child.stdin.end();
    expect(await exited).toBe(0);
    const lines = stdout.split('\n').filter((line) => line !== '');
    expect(lines.length).toBeGreaterThanOrEqual(4);
    for (const line of lines) expect((JSON.parse(line) as { jsonrpc?: string }).jsonrpc).toBe('2.0');
    expect(
      lines
        .map((line) => (JSON.parse(line) as { id?: number }).id)
        .filter((id) => id !== undefined)
        .sort(),
    ).toEqual([1, 2, 3, 4]);
  });
});
