// `sessionctx serve` as a person runs it: the built executable over a copy of the fixtures, its first stdout line,
// a working token exchange, and a clean exit on SIGTERM and SIGINT.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_BIN } from '../../support/cli-process.js';
import { callApi, makeWebFixture, send, signIn } from './web-test-support.js';
import type { WebFixture } from './web-test-support.js';

let fixture: WebFixture;

beforeAll(async () => {
  fixture = await makeWebFixture();
});

afterAll(async () => {
  await fixture?.cleanup();
});

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
});
