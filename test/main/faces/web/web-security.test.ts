// The security rules of `sessionctx serve` (issue 18, docs/WEB.md "Security model"), one test per rule, against a
// real server over a copy of the dsh-small fixtures serving a tiny test page.
import { request } from 'node:http';
import { connect } from 'node:net';
import { join, sep } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { LocalSessionEngine } from '../../../../src/main/engine/assembly/create-engine.js';
import { MAX_API_BODY_BYTES, startWebServer } from '../../../../src/main/faces/web/web-server.js';
import type { RunningWebServer } from '../../../../src/main/faces/web/web-server.js';
import { defaultAssetsDir } from '../../../../src/main/faces/web/static-assets.js';
import { REPO_ROOT } from '../../../support/fixtures.js';
import { callApi, cookiePair, send, TEST_APP_JS, TEST_INDEX_HTML, serveFixture } from './web-test-support.js';
import type { WebFixture } from './web-test-support.js';

const TOKEN = 'test-token-0123456789abcdefghijklmnopqrstuvwxyz';

const served = serveFixture(TOKEN);
let fixture: WebFixture;
let engine: LocalSessionEngine;
let server: RunningWebServer;
let cookie: string;
beforeAll(() => {
  ({ fixture, engine, server, cookie } = served());
});

/** A POST of the API with everything right except what `change` alters. */
function apiRequest(change: { headers?: Record<string, string>; body?: string | Buffer; path?: string; method?: string } = {}) {
  return send(server.port, {
    method: change.method ?? 'POST',
    path: change.path ?? '/api/sessions/list',
    headers: { cookie, 'content-type': 'application/json', origin: server.origin, ...change.headers },
    body: change.body ?? '{}',
  });
}

describe('startWebServer', () => {
  it('prints a URL of the form http://127.0.0.1:<port>/?token=<token> with a random token of at least 128 bits', async () => {
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/?token=${TOKEN}`);
    expect(server.origin).toBe(`http://127.0.0.1:${server.port}`);
    const other = await startWebServer({ engine, assetsDir: fixture.assetsDir });
    try {
      expect(other.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]+$/);
      // 32 random bytes as base64url: 43 characters, 256 bits.
      expect(Buffer.from(other.token, 'base64url').length).toBeGreaterThanOrEqual(16);
      expect(other.token).not.toBe(TOKEN);
    } finally {
      await other.close();
    }
  });

  it('refuses a non-loopback host with WEB_HOST_NOT_LOOPBACK and binds nothing', async () => {
    for (const host of ['0.0.0.0', '192.168.1.10', '::', 'example.com']) {
      const error = await startWebServer({ engine, host }).then(
        () => undefined,
        (failure: unknown) => failure,
      );
      expect(error).toMatchObject({ code: 'WEB_HOST_NOT_LOOPBACK' });
    }
  });
});

describe('token and cookie', () => {
  it('GET /?token=<right token> sets an HttpOnly SameSite=Strict cookie for / and redirects to / with 303', async () => {
    const res = await send(server.port, { path: `/?token=${TOKEN}` });
    expect(res.status).toBe(303);
    expect(res.headers['location']).toBe('/');
    const setCookie = String(res.headers['set-cookie']);
    expect(setCookie).toMatch(/; HttpOnly/);
    expect(setCookie).toMatch(/; SameSite=Strict/);
    expect(setCookie).toMatch(/; Path=\//);
    // The cookie is not the token: the token in the history never is the credential itself.
    expect(cookiePair(res.headers['set-cookie'])).not.toContain(TOKEN);
    const page = await send(server.port, { path: '/', headers: { cookie: cookiePair(res.headers['set-cookie']) } });
    expect(page.status).toBe(200);
    expect(page.body).toBe(TEST_INDEX_HTML);
  });

  it('a wrong or empty token is a 401 without a cookie', async () => {
    for (const path of ['/?token=wrong', '/?token=', `/?token=${TOKEN}x`]) {
      const res = await send(server.port, { path });
      expect(res.status).toBe(401);
      expect(res.headers['set-cookie']).toBeUndefined();
    }
  });

  it('every API call without the cookie (or with a wrong one) is 401 WEB_UNAUTHORIZED', async () => {
    for (const headers of [{ cookie: '' }, { cookie: `${cookie.split('=')[0]}=forged` }, { cookie: `other=${cookie.split('=')[1]}` }]) {
      const res = await apiRequest({ headers });
      expect(res.status).toBe(401);
      expect(JSON.parse(res.body)).toMatchObject({ ok: false, error: { code: 'WEB_UNAUTHORIZED' } });
    }
  });

  it('the page and its files need the cookie too (only the token exchange does not)', async () => {
    for (const path of ['/', '/assets/app.js', '/sessions/some-id']) {
      expect((await send(server.port, { path })).status).toBe(401);
    }
    const app = await send(server.port, { path: '/assets/app.js', headers: { cookie } });
    expect(app.status).toBe(200);
    expect(app.body).toBe(TEST_APP_JS);
    expect(app.headers['content-type']).toBe('text/javascript; charset=utf-8');
  });
});

describe('request checks', () => {
  it('a Host that is not a loopback name with our port is 403 WEB_FORBIDDEN_HOST (DNS rebinding)', async () => {
    for (const host of ['evil.example', `evil.example:${server.port}`, `127.0.0.1:${server.port + 1}`, '127.0.0.1', 'localhost']) {
      const res = await apiRequest({ headers: { host } });
      expect(res.status).toBe(403);
      expect(JSON.parse(res.body)).toMatchObject({ ok: false, error: { code: 'WEB_FORBIDDEN_HOST' } });
    }
    for (const host of [`localhost:${server.port}`, `[::1]:${server.port}`]) {
      const res = await send(server.port, { path: `/?token=${TOKEN}`, headers: { host } });
      expect(res.status).toBe(303);
    }
  });

  it('a request with two Host (or two Origin) header lines is 400 WEB_DUPLICATE_HEADER, whichever copy is ours (RFC 9112 §3.2)', async () => {
    // Node keeps the first Host and drops the rest from `req.headers`, so only a raw request can send a second one.
    const raw = (headerLines: string): Promise<{ status: number; body: string }> =>
      new Promise((resolvePromise, reject) => {
        const socket = connect(server.port, '127.0.0.1');
        let received = '';
        socket.on('data', (chunk) => {
          received += chunk.toString('utf8');
        });
        socket.on('error', reject);
        socket.on('close', () => {
          const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(received)?.[1]);
          resolvePromise({ status, body: received.slice(received.indexOf('\r\n\r\n') + 4) });
        });
        const body = '{}';
        // Written, not ended: the server closes the connection after its reply (`Connection: close`).
        socket.write(
          `POST /api/sessions/list HTTP/1.1\r\n${headerLines}\r\nCookie: ${cookie}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
        );
      });
    const ours = `127.0.0.1:${server.port}`;
    expect((await raw(`Host: ${ours}`)).status).toBe(200);
    for (const lines of [
      `Host: ${ours}\r\nHost: evil.example`,
      `Host: evil.example\r\nHost: ${ours}`,
      `Host: ${ours}\r\nhost: ${ours}`,
      `Host: ${ours}\r\nOrigin: ${server.origin}\r\nOrigin: http://evil.example`,
    ]) {
      const reply = await raw(lines);
      expect(reply.status, lines).toBe(400);
      expect(JSON.parse(reply.body), lines).toMatchObject({ ok: false, error: { code: 'WEB_DUPLICATE_HEADER' } });
    }
  });

  it('an Origin other than ours is 403 WEB_FORBIDDEN_ORIGIN; no Origin is fine', async () => {
    for (const origin of ['http://evil.example', `http://127.0.0.1:${server.port + 1}`, 'null', `https://127.0.0.1:${server.port}`]) {
      const res = await apiRequest({ headers: { origin } });
      expect(res.status).toBe(403);
      expect(JSON.parse(res.body)).toMatchObject({ ok: false, error: { code: 'WEB_FORBIDDEN_ORIGIN' } });
    }
    const res = await send(server.port, {
      method: 'POST',
      path: '/api/sessions/list',
      headers: { cookie, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(res.status).toBe(200);
  });

  it('Sec-Fetch-Site cross-site (and same-site: another port) is 403 WEB_FORBIDDEN_FETCH_SITE', async () => {
    for (const site of ['cross-site', 'same-site']) {
      const res = await apiRequest({ headers: { 'sec-fetch-site': site } });
      expect(res.status).toBe(403);
      expect(JSON.parse(res.body)).toMatchObject({ ok: false, error: { code: 'WEB_FORBIDDEN_FETCH_SITE' } });
      const page = await send(server.port, { path: '/', headers: { cookie, 'sec-fetch-site': site } });
      expect(page.status).toBe(403);
    }
    for (const site of ['same-origin', 'none']) expect((await apiRequest({ headers: { 'sec-fetch-site': site } })).status).toBe(200);
  });

  it('no response carries a CORS header, whatever the request asks', async () => {
    const responses = [
      await apiRequest({ headers: { origin: server.origin } }),
      await apiRequest({ headers: { origin: 'http://evil.example' } }),
      await send(server.port, {
        method: 'OPTIONS',
        path: '/api/sessions/list',
        headers: { origin: 'http://evil.example', 'access-control-request-method': 'POST' },
      }),
      await send(server.port, { path: '/', headers: { cookie } }),
    ];
    for (const res of responses) {
      expect(Object.keys(res.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
    }
  });

  it('OPTIONS is 405 WEB_METHOD_NOT_ALLOWED everywhere', async () => {
    for (const path of ['/api/sessions/list', '/', '/assets/app.js']) {
      const res = await send(server.port, { method: 'OPTIONS', path, headers: { cookie } });
      expect(res.status).toBe(405);
    }
    const api = await send(server.port, { method: 'OPTIONS', path: '/api/sessions/list', headers: { cookie } });
    expect(JSON.parse(api.body)).toMatchObject({ ok: false, error: { code: 'WEB_METHOD_NOT_ALLOWED' } });
  });

  it('the API takes POST only and the page GET/HEAD only (405)', async () => {
    expect((await send(server.port, { path: '/api/sessions/list', headers: { cookie } })).status).toBe(405);
    expect((await send(server.port, { method: 'POST', path: '/', headers: { cookie }, body: '{}' })).status).toBe(405);
    const head = await send(server.port, { method: 'HEAD', path: '/', headers: { cookie } });
    expect(head.status).toBe(200);
    expect(head.body).toBe('');
  });

  it('every response has the CSP, nosniff and no-referrer headers; API replies are no-store', async () => {
    const responses = [
      await apiRequest(),
      await apiRequest({ headers: { cookie: '' } }),
      await send(server.port, { path: '/', headers: { cookie } }),
      await send(server.port, { path: '/?token=wrong' }),
      await send(server.port, { path: `/?token=${TOKEN}` }),
      await send(server.port, { path: '/', headers: { host: 'evil.example' } }),
    ];
    for (const res of responses) {
      const csp = String(res.headers['content-security-policy']);
      expect(csp.split('; ')[0]).toBe("default-src 'self'");
      expect(csp).not.toContain('unsafe-inline');
      expect(csp).not.toContain('unsafe-eval');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['referrer-policy']).toBe('no-referrer');
    }
    expect(responses[0]?.headers['cache-control']).toBe('no-store');
    expect(responses[1]?.headers['cache-control']).toBe('no-store');
  });
});

describe('API requests', () => {
  it('a body that is not application/json is 415 WEB_UNSUPPORTED_MEDIA_TYPE', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', '']) {
      const res = await apiRequest({ headers: { 'content-type': type } });
      expect(res.status).toBe(415);
      expect(JSON.parse(res.body)).toMatchObject({ ok: false, error: { code: 'WEB_UNSUPPORTED_MEDIA_TYPE' } });
    }
    expect((await apiRequest({ headers: { 'content-type': 'application/json; charset=utf-8' } })).status).toBe(200);
  });

  it('a body over the limit is 413 WEB_PAYLOAD_TOO_LARGE', async () => {
    const big = JSON.stringify({ query: 'x'.repeat(MAX_API_BODY_BYTES) });
    const res = await apiRequest({ path: '/api/sessions/candidates', body: big });
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body)).toMatchObject({ ok: false, error: { code: 'WEB_PAYLOAD_TOO_LARGE' } });
  });

  it('a chunked body (no Content-Length) that grows past the limit is 413 too', async () => {
    const res = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: server.port,
          method: 'POST',
          path: '/api/sessions/candidates',
          headers: { host: `127.0.0.1:${server.port}`, cookie, 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        },
      );
      req.on('error', reject);
      const piece = Buffer.alloc(64 * 1024, 0x20);
      for (let sent = 0; sent <= MAX_API_BODY_BYTES; sent += piece.length) req.write(piece);
      req.end();
    });
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body)).toMatchObject({ ok: false, error: { code: 'WEB_PAYLOAD_TOO_LARGE' } });
  });

  it('a body that is not JSON is 400 WEB_BAD_REQUEST', async () => {
    for (const body of ['{', '', 'undefined', "{'a':1}"]) {
      const res = await apiRequest({ body });
      expect(res.status).toBe(400);
      expect(JSON.parse(res.body)).toMatchObject({ ok: false, error: { code: 'WEB_BAD_REQUEST' } });
    }
  });

  it('arguments that do not match the method are 400 WEB_INVALID_ARGUMENTS naming the key', async () => {
    const cases: Array<[string, unknown, string]> = [
      ['sessions/candidates', {}, 'query'],
      ['sessions/candidates', { query: 1 }, 'query'],
      ['sessions/candidates', { query: '', limit: 0 }, 'limit'],
      ['sessions/candidates', { query: '', extra: true }, 'extra'],
      ['sessions/list', [], 'arguments'],
      ['sessions/surface', { sessionId: '' }, 'sessionId'],
      ['sessions/log', {}, 'sessionId'],
      ['files/candidates', {}, 'query'],
      ['files/candidates', { query: 'x'.repeat(1025) }, 'query'],
      ['files/candidates', { query: '', target: 7 }, 'target'],
      ['files/candidates', { query: '', cwd: '/' }, 'cwd'],
    ];
    for (const [method, args, key] of cases) {
      const { status, reply } = await callApi(server.port, cookie, method, args);
      expect(status).toBe(400);
      expect(reply).toMatchObject({ ok: false, error: { code: 'WEB_INVALID_ARGUMENTS' } });
      expect(reply.error.message).toContain(key);
    }
  });

  it('an unknown method is 404 WEB_UNKNOWN_METHOD', async () => {
    for (const path of ['/api/sessions/delete', '/api/sessions', '/api/', '/api/sessions/list/extra']) {
      const res = await apiRequest({ path });
      expect(res.status).toBe(404);
      expect(JSON.parse(res.body)).toMatchObject({ ok: false, error: { code: 'WEB_UNKNOWN_METHOD' } });
    }
  });
});

describe('static files', () => {
  it('a path that leaves the assets directory is refused, encoded or not', async () => {
    for (const path of [
      '/../secret.txt',
      '/assets/../../secret.txt',
      '/%2e%2e/secret.txt',
      '/assets/%2e%2e%2f%2e%2e%2fsecret.txt',
      '/..%5csecret.txt',
      '/%00',
    ]) {
      const res = await send(server.port, { path, headers: { cookie } });
      expect([400, 404]).toContain(res.status);
      expect(res.body).not.toContain('TOP-SECRET');
    }
  });

  it("the default assets directory is the package's dist/web", () => {
    expect(defaultAssetsDir()).toBe(`${join(REPO_ROOT, 'dist', 'web')}${sep}`);
  });

  it('an unknown path without an extension gets index.html (the page routes); a missing file is 404', async () => {
    const route = await send(server.port, { path: '/sessions/session-x', headers: { cookie } });
    expect(route.status).toBe(200);
    expect(route.body).toBe(TEST_INDEX_HTML);
    expect(route.headers['content-type']).toBe('text/html; charset=utf-8');
    expect((await send(server.port, { path: '/assets/missing.js', headers: { cookie } })).status).toBe(404);
  });
});
