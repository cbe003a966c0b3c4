/**
 * What the Web server tests share: a temporary copy of a fixture root, a tiny page to serve, an engine over the copy,
 * and a raw HTTP client whose every header (Host included) the test chooses.
 */
import { readFileSync } from 'node:fs';
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { createEngine } from '../../../../src/main/engine/assembly/create-engine.js';
import { startWebServer } from '../../../../src/main/faces/web/web-server.js';
import type { RunningWebServer } from '../../../../src/main/faces/web/web-server.js';
import type { LocalSessionEngine } from '../../../../src/main/engine/assembly/create-engine.js';
import { DSH_SMALL, RAW_ROOT } from '../../../support/fixtures.js';

/** The page the tests serve instead of the real build (which another part of the project produces). */
export const TEST_INDEX_HTML = '<!doctype html><title>test page</title><script type="module" src="/assets/app.js"></script>\n';
export const TEST_APP_JS = 'console.log("app");\n';

/** A temporary directory with a copy of the dsh-small raw root and a tiny assets directory. */
export interface WebFixture {
  readonly dir: string;
  readonly root: string;
  readonly assetsDir: string;
  cleanup(): Promise<void>;
}

/** Copies the fixture root and writes the test page. */
export async function makeWebFixture(): Promise<WebFixture> {
  const dir = await mkdtemp(join(tmpdir(), 'sessionctx-web-'));
  const root = join(dir, 'sessions');
  await cp(RAW_ROOT, root, { recursive: true });
  const assetsDir = join(dir, 'assets-dir');
  await mkdir(join(assetsDir, 'assets'), { recursive: true });
  await writeFile(join(assetsDir, 'index.html'), TEST_INDEX_HTML);
  await writeFile(join(assetsDir, 'assets', 'app.js'), TEST_APP_JS);
  // A file beside the assets directory that no request may read.
  await writeFile(join(dir, 'secret.txt'), 'TOP-SECRET-CONTENT\n');
  return { dir, root, assetsDir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** An in-thread engine over a root (no pool threads: the tests share two cores). */
export function testEngine(root: string): Promise<LocalSessionEngine> {
  return createEngine({ root, workers: false, sourceCache: false });
}

/** A running server over a fixture copy, signed in: what a suite's tests use once {@link serveFixture}'s hook ran. */
export interface ServedFixture {
  readonly fixture: WebFixture;
  readonly engine: LocalSessionEngine;
  readonly server: RunningWebServer;
  /** The session cookie (`name=value`) the token exchange set. */
  readonly cookie: string;
}

/**
 * Registers the suite's lifecycle: before all tests a fixture copy, an engine over it, a server with the test page
 * (`token` fixed when given) and a signed-in cookie; after all of them everything closed and removed.
 * @returns a getter of the running set (it throws before the suite's `beforeAll` ran)
 */
export function serveFixture(token?: string): () => ServedFixture {
  let served: ServedFixture | undefined;
  let fixture: WebFixture | undefined;
  let engine: LocalSessionEngine | undefined;
  let server: RunningWebServer | undefined;
  beforeAll(async () => {
    fixture = await makeWebFixture();
    engine = await testEngine(fixture.root);
    server = await startWebServer({ engine, assetsDir: fixture.assetsDir, ...(token === undefined ? {} : { token }) });
    served = { fixture, engine, server, cookie: await signIn(server.port, server.token) };
  });
  afterAll(async () => {
    await server?.close();
    await engine?.close();
    await fixture?.cleanup();
  });
  return () => {
    if (served === undefined) throw new Error('the served fixture is used before its beforeAll ran');
    return served;
  };
}

/** One HTTP exchange as the server answered it. */
export interface RawResponse {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

/** A request: method, path, headers (sent exactly; no defaults but Content-Length for a body), body. */
export interface RawRequest {
  readonly method?: string;
  readonly path: string;
  readonly headers?: Record<string, string>;
  readonly body?: string | Buffer;
}

/**
 * Sends one request to `127.0.0.1:<port>`.
 * @param port - the server's port.
 * @param raw - what to send.
 */
export function send(port: number, raw: RawRequest): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, method: raw.method ?? 'GET', path: raw.path, headers: { host: `127.0.0.1:${port}`, ...raw.headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    if (raw.body !== undefined) req.end(raw.body);
    else req.end();
  });
}

/** The `name=value` pair of a `Set-Cookie` header. */
export function cookiePair(setCookie: string | string[] | undefined): string {
  const first = Array.isArray(setCookie) ? setCookie[0] : setCookie;
  if (first === undefined) throw new Error('no Set-Cookie header');
  return first.split(';')[0] as string;
}

/** Exchanges the token for the cookie and returns the `Cookie` header value to send. */
export async function signIn(port: number, token: string): Promise<string> {
  const res = await send(port, { path: `/?token=${encodeURIComponent(token)}` });
  if (res.status !== 303) throw new Error(`token exchange answered ${res.status}`);
  return cookiePair(res.headers['set-cookie']);
}

/**
 * Calls a remote method with the cookie.
 * @returns the HTTP status and the parsed reply.
 */
export async function callApi(port: number, cookie: string, method: string, args: unknown): Promise<{ status: number; reply: any }> {
  const res = await send(port, {
    method: 'POST',
    path: `/api/${method}`,
    headers: { cookie, 'content-type': 'application/json', origin: `http://127.0.0.1:${port}` },
    body: JSON.stringify(args),
  });
  return { status: res.status, reply: JSON.parse(res.body) };
}

/** One row of `dsh-small/sessions.tsv`. */
export interface TableRow {
  readonly id: string;
  readonly cwd: string | undefined;
  readonly title: string;
  readonly fileBytes: number;
}

/** The dsh-small fixture's session table (`sessions.tsv`): ids, cwds, titles and artifact sizes, as dsh wrote them. */
export function fixtureTable(): TableRow[] {
  const [head, ...lines] = readFileSync(join(DSH_SMALL, 'sessions.tsv'), 'utf8').trimEnd().split('\n');
  const columns = (head as string).split('\t');
  return lines.map((line) => {
    const cells = line.split('\t');
    const cell = (name: string): string => cells[columns.indexOf(name)] as string;
    return {
      id: cell('id'),
      cwd: cell('cwd') === '(none)' ? undefined : cell('cwd'),
      title: JSON.parse(cell('title')) as string,
      fileBytes: Number(cell('fileBytes')),
    };
  });
}
