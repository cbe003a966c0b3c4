// `sessionctx mcp --http` as a child process, through the official SDK's Streamable HTTP client: the printed URL (with
// its token) serves the same resources as stdio; a request without the token, with a foreign Host or Origin, or with
// two Host headers is refused before any MCP handling — and `sessionctx serve` refuses two Host headers the same way
// (one guard, web/request-guard.ts). `--port` without `--http` is a usage error.
import { type ChildProcess, spawn } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { connect as connectSocket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_BIN, runBuiltCli } from '../../../support/cli-process.js';
import { RAW_ROOT } from '../../../support/fixtures.js';

let dir: string;
let root: string;
const children: ChildProcess[] = [];

/** Starts a serving command and reads the URL it prints first. */
async function start(args: readonly string[], prefix: string): Promise<URL> {
  const child = spawn(process.execPath, [CLI_BIN, ...args, '--root', root], {
    env: { ...process.env, HOME: join(dir, 'home'), XDG_CACHE_HOME: join(dir, 'cache'), NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  const first = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`exited with ${String(code)} before printing its URL`)));
  });
  expect(first.startsWith(`${prefix}: `)).toBe(true);
  return new URL(first.slice(prefix.length + 2));
}

/** One raw HTTP/1.1 request (so headers can repeat); the status code of the reply. */
function rawStatus(url: URL, head: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = connectSocket(Number(url.port), url.hostname, () => {
      socket.write(`${head}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
    });
    let reply = '';
    socket.on('data', (chunk: Buffer) => {
      reply += chunk.toString('latin1');
    });
    socket.once('error', reject);
    socket.once('close', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(reply)?.[1])));
  });
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'sessionctx-mcp-http-'));
  root = join(dir, 'root');
  cpSync(RAW_ROOT, root, { recursive: true });
});

afterAll(async () => {
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null) resolve();
          else {
            child.once('exit', () => resolve());
            child.kill('SIGTERM');
          }
        }),
    ),
  );
  rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
});

describe('sessionctx mcp --http', () => {
  it('serves the resources of stdio at the printed URL; refuses a missing token, a foreign Host or Origin, two Hosts', async () => {
    const url = await start(['mcp', '--http'], 'sessionctx mcp');
    expect(url.origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(url.pathname).toBe('/mcp');
    const client = new Client({ name: 'http-test', version: '0' });
    await client.connect(new StreamableHTTPClientTransport(url));
    const { resources } = await client.listResources();
    const stdio = await runBuiltCli(['sessions', '--root', root, '--json'], {
      env: { ...process.env, HOME: join(dir, 'home'), XDG_CACHE_HOME: join(dir, 'cache') },
    });
    expect(resources).toHaveLength((JSON.parse(stdio.stdout) as { sessions: unknown[] }).sessions.length);
    expect(client.getServerCapabilities()?.logging).toEqual({});
    await client.close();

    const host = `${url.hostname}:${url.port}`;
    const initialize = (headers: Record<string, string>, target: URL) =>
      fetch(target, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '0' } },
        }),
      });
    const bare = new URL(url.pathname, url.origin);
    expect((await initialize({}, bare)).status).toBe(401);
    expect((await initialize({ authorization: `Bearer ${url.searchParams.get('token')}` }, bare)).status).toBe(200);
    expect((await initialize({ origin: 'http://evil.example' }, url)).status).toBe(403);
    const path = `${url.pathname}${url.search}`;
    expect(await rawStatus(url, `POST ${path} HTTP/1.1\r\nHost: evil.example:${url.port}`)).toBe(403);
    expect(await rawStatus(url, `POST ${path} HTTP/1.1\r\nHost: ${host}\r\nHost: evil.example`)).toBe(400);
    expect(await rawStatus(url, `GET /elsewhere${url.search} HTTP/1.1\r\nHost: ${host}`)).toBe(404);
  });

  it('sessionctx serve refuses two Host headers the same way (400)', async () => {
    const url = await start(['serve'], 'sessionctx serve');
    const host = `${url.hostname}:${url.port}`;
    expect(await rawStatus(url, `GET /?token=${url.searchParams.get('token')} HTTP/1.1\r\nHost: ${host}`)).toBe(303);
    expect(await rawStatus(url, `GET /?token=${url.searchParams.get('token')} HTTP/1.1\r\nHost: ${host}\r\nHost: evil.example`)).toBe(400);
  });

  it('--port without --http is a usage error', async () => {
    const outcome = await runBuiltCli(['mcp', '--port', '8738', '--root', root]);
    expect(outcome.code).toBe(2);
    expect(outcome.stderr).toContain('--port needs --http');
  });
});
