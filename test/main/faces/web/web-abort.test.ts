// An aborted request aborts the engine call: a client that goes away (a newer keystroke's lookup, a closed tab) must
// not leave discovery or a preparation running. The engine's candidates() is a stand-in that settles only when its
// signal aborts, so the test does not depend on the machine's speed.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalSessionEngine } from '../../../../src/main/engine/assembly/create-engine.js';
import { startWebServer } from '../../../../src/main/faces/web/web-server.js';
import { callApi, makeWebFixture, signIn, testEngine } from './web-test-support.js';
import type { WebFixture } from './web-test-support.js';

let fixture: WebFixture;
let engine: LocalSessionEngine;

beforeAll(async () => {
  fixture = await makeWebFixture();
  engine = await testEngine(fixture.root);
});

afterAll(async () => {
  await engine?.close();
  await fixture?.cleanup();
});

describe('abort propagation', () => {
  it('a client that closes its request aborts the engine call; the server answers the next request', async () => {
    let started = 0;
    let markAborted: (reason: unknown) => void = () => undefined;
    const aborted = new Promise<unknown>((resolve) => {
      markAborted = resolve;
    });
    const waiting: LocalSessionEngine = {
      ...engine,
      candidates: (_target, _query, _limit, signal) => {
        started += 1;
        return new Promise((_resolve, reject) => {
          signal?.addEventListener(
            'abort',
            () => {
              markAborted(signal.reason);
              reject(signal.reason as Error);
            },
            { once: true },
          );
        });
      },
    };
    const server = await startWebServer({ engine: waiting, assetsDir: fixture.assetsDir });
    try {
      const cookie = await signIn(server.port, server.token);
      const req = request({
        host: '127.0.0.1',
        port: server.port,
        method: 'POST',
        path: '/api/sessions/candidates',
        headers: { host: `127.0.0.1:${server.port}`, cookie, 'content-type': 'application/json' },
      });
      req.on('error', () => undefined);
      req.end(JSON.stringify({ query: 'slow' }));
      while (started === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      req.destroy();
      const reason = await aborted;
      expect(reason).toBeInstanceOf(Error);
      expect((reason as Error).message).toBe('the client closed the request');
      const { reply } = await callApi(server.port, cookie, 'sessions/list', {});
      expect(reply.ok).toBe(true);
    } finally {
      await server.close();
    }
  });

  it('closing the server aborts the calls still running', async () => {
    let markAborted: (reason: unknown) => void = () => undefined;
    const aborted = new Promise<unknown>((resolve) => {
      markAborted = resolve;
    });
    let started = false;
    const waiting: LocalSessionEngine = {
      ...engine,
      readSurface: (_id, signal) => {
        started = true;
        return new Promise((_resolve, reject) => {
          signal?.addEventListener('abort', () => {
            markAborted(signal.reason);
            reject(signal.reason as Error);
          });
        });
      },
    };
    const server = await startWebServer({ engine: waiting, assetsDir: fixture.assetsDir });
    const cookie = await signIn(server.port, server.token);
    const call = callApi(server.port, cookie, 'sessions/surface', { sessionId: 'session-x' }).catch((error: unknown) => error);
    while (!started) await new Promise((resolve) => setTimeout(resolve, 5));
    await server.close();
    expect(await aborted).toBeInstanceOf(Error);
    await call;
  });
});
