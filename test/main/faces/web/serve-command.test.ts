// `sessionctx serve` as a person runs it: the built executable over a copy of the fixtures, its first stdout line,
// a working token exchange, and a clean exit on SIGTERM and SIGINT.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { CLI_BIN } from '../../../support/cli-process.js';
import { DCP_DISABLED_STATS_TEXT } from '../../../../src/main/catalog/summary-stats-text.js';
import { callApi, makeWebFixture, send, signIn } from './web-test-support.js';
import type { WebFixture } from './web-test-support.js';

let fixture: WebFixture;

beforeAll(async () => {
  fixture = await makeWebFixture();
});

afterAll(async () => {
  await fixture?.cleanup();
});

/** A port that was free a moment ago (bound to 0 and released). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Starts `sessionctx serve` and resolves with its first stdout line. */
function startServe(
  args: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): {
  child: ChildProcess;
  firstLine: Promise<string>;
  exit: Promise<number | null>;
  stderr: () => string;
} {
  const child = spawn(process.execPath, [CLI_BIN, 'serve', ...args], { stdio: ['ignore', 'pipe', 'pipe'], env });
  let out = '';
  let err = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString('utf8');
  });
  const firstLine = new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const newline = out.indexOf('\n');
      if (newline >= 0) resolve(out.slice(0, newline));
    });
    child.once('exit', () => reject(new Error(`serve exited before printing its URL: ${err}`)));
  });
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, firstLine, exit, stderr: () => err };
}

describe('sessionctx serve', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`prints "sessionctx serve: http://127.0.0.1:<port>/?token=<token>" first, serves the API, and exits 0 on ${signal}`, async () => {
      const serve = startServe(['--root', fixture.root, '--port', '0', '--no-workers']);
      try {
        const line = await serve.firstLine;
        const match = /^sessionctx serve: http:\/\/127\.0\.0\.1:(\d+)\/\?token=([A-Za-z0-9_-]{43})$/.exec(line);
        expect(match, line).not.toBeNull();
        const port = Number(match?.[1]);
        const cookie = await signIn(port, match?.[2] as string);
        const { reply } = await callApi(port, cookie, 'sessions/list', {});
        expect(reply.ok).toBe(true);
        expect(reply.value.sessions.length).toBe(14);
        expect((await send(port, { path: '/?token=wrong' })).status).toBe(401);
        serve.child.kill(signal);
        expect(await serve.exit).toBe(0);
      } finally {
        serve.child.kill('SIGKILL');
      }
    });
  }

  it('--open without a system opener only warns on stderr; the server runs on', async () => {
    // No directory of this PATH holds xdg-open (or open): starting the opener fails.
    const serve = startServe(['--root', fixture.root, '--open', '--no-workers'], { ...process.env, PATH: fixture.dir });
    try {
      const line = await serve.firstLine;
      expect(line).toMatch(/^sessionctx serve: http:\/\/127\.0\.0\.1:\d+\/\?token=/);
      while (!serve.stderr().includes('could not open a browser')) await new Promise((resolve) => setTimeout(resolve, 20));
      const port = Number(/:(\d+)\//.exec(line)?.[1]);
      expect((await send(port, { path: '/?token=wrong' })).status).toBe(401);
      serve.child.kill('SIGTERM');
      expect(await serve.exit).toBe(0);
    } finally {
      serve.child.kill('SIGKILL');
    }
  });

  it('refuses a non-loopback --host with WEB_HOST_NOT_LOOPBACK and exit status 1', async () => {
    const serve = startServe(['--root', fixture.root, '--host', '0.0.0.0', '--no-workers']);
    expect(await serve.exit).toBe(1);
    expect(serve.stderr()).toContain('WEB_HOST_NOT_LOOPBACK');
    await serve.firstLine.catch(() => undefined);
  });

  it("binds the config file's serve.port; --port overrides it", async () => {
    const [configured, flagged] = [await freePort(), await freePort()];
    const configFile = join(fixture.dir, 'serve-port.config.json');
    await writeFile(configFile, JSON.stringify({ serve: { port: configured } }));
    for (const [args, expected] of [
      [[], configured],
      [['--port', String(flagged)], flagged],
    ] as const) {
      const serve = startServe(['--root', fixture.root, '--config', configFile, '--no-workers', ...args]);
      try {
        const line = await serve.firstLine;
        expect(Number(/^sessionctx serve: http:\/\/127\.0\.0\.1:(\d+)\//.exec(line)?.[1]), line).toBe(expected);
        // Served there (and running, as the other tests see it before they stop it).
        expect((await send(expected, { path: '/?token=wrong' })).status).toBe(401);
        serve.child.kill('SIGTERM');
        expect(await serve.exit).toBe(0);
      } finally {
        serve.child.kill('SIGKILL');
      }
    }
  });

  it("computes the Context view with the config file's dcp namespace (dcp.enabled: false: no DCP statistics)", async () => {
    // The composition resolves `dcp` once, at start-up; serve's catalog (the one the Web answers through) takes that value.
    const configFile = join(fixture.dir, 'dcp-off.config.json');
    await writeFile(configFile, JSON.stringify({ dcp: { enabled: false } }));
    const serve = startServe(['--root', fixture.root, '--config', configFile, '--no-workers']);
    try {
      const match = /:(\d+)\/\?token=([A-Za-z0-9_-]+)$/.exec(await serve.firstLine);
      const port = Number(match?.[1]);
      const cookie = await signIn(port, match?.[2] as string);
      const listed = await callApi(port, cookie, 'sessions/list', {});
      const sessionId = listed.reply.value.sessions[0].sessionId as string;
      const { reply } = await callApi(port, cookie, 'dcp/summary', { sessionId });
      expect(reply.ok, JSON.stringify(reply)).toBe(true);
      expect(reply.value.statsText).toBe(DCP_DISABLED_STATS_TEXT);
      expect(reply.value.blocks).toEqual([]);
      serve.child.kill('SIGTERM');
      expect(await serve.exit).toBe(0);
    } finally {
      serve.child.kill('SIGKILL');
    }
  });

  it('a SIGTERM right after the URL line is a clean stop (exit 0), not a death by signal', async () => {
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const serve = startServe(['--root', fixture.root, '--no-workers']);
      try {
        await serve.firstLine;
        serve.child.kill('SIGTERM');
        expect(await serve.exit).toBe(0);
      } finally {
        serve.child.kill('SIGKILL');
      }
    }
  });
});
