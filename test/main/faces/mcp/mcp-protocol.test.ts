// `sessionctx mcp` as an MCP client author meets it (issue 26), through the official SDK's Client over a real stdio
// child process: errors carry their prefix once; `tools/call` with non-object arguments is -32602 with a sentence;
// id prefixes are accepted where the CLI accepts them (the same text as the full id); an unknown 1 MB id is never
// echoed whole; logging (setLevel, notifications/message); resources/subscribe with notifications/resources/updated
// after a change below the root (and none after unsubscribe); a stdio message over the SDK's 10 MiB read limit gets
// a JSON-RPC error and exit 1.
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  CallToolResultSchema,
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JsonlSessionStore } from '../../../../src/main/engine/store/jsonl-store.js';
import { asSessionId } from '../../../../src/protocol/events.js';
import { encodeSessionReferenceUri } from '../../../../src/protocol/uri/session-uri.js';
import { CLI_BIN } from '../../../support/cli-process.js';
import { ZSTD_ROOT } from '../../../support/fixtures.js';

const FULL_ID = 'session-a7eb71e0-a55c-4c81-b989-f0c51c63c83f';

let dir: string;
let root: string;
const clients: Client[] = [];

async function connect(args: readonly string[] = []): Promise<{ client: Client; stderr: () => string }> {
  let stderr = '';
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI_BIN, 'mcp', '--root', root, ...args],
    env: { ...(process.env as Record<string, string>), HOME: join(dir, 'home'), XDG_CACHE_HOME: join(dir, 'cache'), NO_COLOR: '1' },
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const client = new Client({ name: 'sessionctx-protocol-test', version: '0' });
  await client.connect(transport);
  clients.push(client);
  return { client, stderr: () => stderr };
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'sessionctx-mcp-protocol-'));
  root = join(dir, 'root');
  cpSync(ZSTD_ROOT, root, { recursive: true });
});

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
});

/** The text of a tool result's first block. */
function textOf(result: object): string {
  return ((result as { content?: Array<{ text: string }> }).content ?? [])[0]?.text ?? '';
}

describe('errors', () => {
  it('carry their prefix once', async () => {
    const { client } = await connect();
    const error = (await client.readResource({ uri: encodeSessionReferenceUri('session-nope') }).catch((e: unknown) => e)) as Error & {
      code: number;
    };
    expect(error.code).toBe(-32002);
    expect(error.message).toBe('MCP error -32002: no session "session-nope" in this corpus');
  });

  it('a tools/call whose arguments is not an object is -32602 with a sentence, not -32603 with a zod dump', async () => {
    const { client } = await connect();
    for (const value of ['x', 7, [1], null]) {
      const error = (await client
        .request({ method: 'tools/call', params: { name: 'find_sessions', arguments: value as never } }, CallToolResultSchema)
        .catch((e: unknown) => e)) as Error & { code: number };
      expect(error.code, JSON.stringify(value)).toBe(-32602);
      expect(error.message).toBe('MCP error -32602: tools/call "find_sessions": arguments must be an object');
    }
    const unknown = (await client.callTool({ name: 'nope' }).catch((e: unknown) => e)) as Error & { code: number };
    expect(unknown.message).toBe('MCP error -32602: no tool "nope"');
  });

  it('an unknown 1 MB id is never echoed whole: not in the reply, not in a stderr line', async () => {
    const { client, stderr } = await connect();
    const huge = `session-${'x'.repeat(1024 * 1024)}`;
    const result = await client.callTool({ name: 'reference_sessions', arguments: { sessions: [huge] } });
    expect(result.isError).toBe(true);
    expect(textOf(result).length).toBeLessThan(400);
    expect(textOf(result)).toContain(`(${huge.length} characters)`);
    await client.listResources();
    for (const line of stderr().split('\n')) expect(line.length).toBeLessThan(1000);
  });
});

describe('session id prefixes', () => {
  it('reference_sessions takes an unambiguous prefix, with or without session-, and answers as for the full id', async () => {
    const { client } = await connect();
    const full = textOf(await client.callTool({ name: 'reference_sessions', arguments: { sessions: [FULL_ID] } }));
    expect(full.startsWith('## Referenced sessions')).toBe(true);
    for (const prefix of ['a7eb71e0', 'session-a7eb71e0']) {
      expect(textOf(await client.callTool({ name: 'reference_sessions', arguments: { sessions: [prefix] } }))).toBe(full);
    }
    const prompt = await client.getPrompt({ name: 'reference', arguments: { session: 'a7eb71e0' } });
    expect((prompt.messages[0]?.content as { text: string }).text).toBe(full);
  });

  it('an ambiguous prefix is MCP_INVALID_ARGUMENTS naming the matches', async () => {
    const { client } = await connect();
    const result = await client.callTool({ name: 'reference_sessions', arguments: { sessions: ['session-'] } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^MCP_INVALID_ARGUMENTS: session id prefix "session-" matches \d+ sessions: session-/);
  });
});

describe('logging', () => {
  it('is a capability; setLevel is accepted; a failed tool call is a warning message to the client', async () => {
    const { client } = await connect(['--max-bytes', '1']);
    expect(client.getServerCapabilities()?.logging).toEqual({});
    const messages: Array<{ level: string; logger?: string; data: unknown }> = [];
    const warned = new Promise<void>((resolve) => {
      client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
        messages.push(notification.params);
        resolve();
      });
    });
    await client.setLoggingLevel('debug');
    const result = await client.callTool({ name: 'reference_sessions', arguments: { sessions: [FULL_ID] } });
    expect(textOf(result)).toMatch(/^SESSION_REFERENCE_BUDGET_EXCEEDED: /);
    await warned;
    expect(messages[0]).toEqual({
      level: 'warning',
      logger: 'sessionctx',
      data: 'reference_sessions failed: SESSION_REFERENCE_BUDGET_EXCEEDED',
    });
  });
});

describe('resources/subscribe', () => {
  it('announces a subscribed session once its text changes; an unsubscribed one never', async () => {
    const { client } = await connect();
    expect(client.getServerCapabilities()?.resources).toMatchObject({ subscribe: true, listChanged: true });
    // The warm view holds the listing before changes are announced.
    await client.listResources();
    const dropped = encodeSessionReferenceUri('session-sub-dropped');
    const kept = encodeSessionReferenceUri('session-sub-kept');
    const updated: string[] = [];
    const keptUpdated = new Promise<void>((resolve) => {
      client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
        updated.push(notification.params.uri);
        if (notification.params.uri === kept) resolve();
      });
    });
    await client.subscribeResource({ uri: dropped });
    await client.unsubscribeResource({ uri: dropped });
    await client.subscribeResource({ uri: kept });
    const store = await JsonlSessionStore.open({ root, compression: 'zstd' });
    await store.create({ version: 0, id: asSessionId('session-sub-dropped'), createdAt: 1_780_000_000_000, cwd: '/work/sub' }, []);
    await store.create({ version: 0, id: asSessionId('session-sub-kept'), createdAt: 1_780_000_000_001, cwd: '/work/sub' }, []);
    await keptUpdated;
    expect(updated).toEqual([kept]);
  });
});

describe('the stdio read limit', () => {
  it('a message over 10 MiB gets a JSON-RPC error on stdout, the reason on stderr, and exit 1', async () => {
    const child = spawn(process.execPath, [CLI_BIN, 'mcp', '--root', root], {
      env: { ...process.env, HOME: join(dir, 'home'), XDG_CACHE_HOME: join(dir, 'cache'), NO_COLOR: '1' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    // One line of 10 MiB + 1 byte, never ended: the SDK's buffer overflows.
    child.stdin.write(Buffer.alloc(10 * 1024 * 1024 + 1, 0x20));
    expect(await exited).toBe(1);
    const reply = JSON.parse(stdout.split('\n')[0] ?? '') as { error: { code: number; message: string } };
    expect(reply.error.code).toBe(-32600);
    expect(reply.error.message).toContain('10 MiB read limit');
    expect(stderr).toContain('MCP_MESSAGE_TOO_LARGE');
    child.stdin.destroy();
  });
});
