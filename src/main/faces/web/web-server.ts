/**
 * `sessionctx serve`'s one `node:http` server (issue 18, docs/WEB.md "Server and API"): the built page and the API
 * (`POST /api/<service>/<method>`) on a loopback address, behind a per-run token exchanged for a cookie. Every request
 * first passes the header checks of `request-guard.ts`; every response carries the headers of `security-headers.ts`.
 * Everything but the token exchange (`GET /?token=…`) needs the cookie, the page's files included: the page is no
 * secret, but a server that answers nothing to a stranger is simpler to reason about.
 */
import { createReadStream } from 'node:fs';
import { createServer } from 'node:http';
import { pipeline } from 'node:stream/promises';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { isIP } from 'node:net';
import type { AddressInfo } from 'node:net';
import { WEB_METHODS } from '../../../protocol/web/web-api.js';
import type { WebMethod, WebReply } from '../../../protocol/web/web-api.js';
import { resolveReferenceConfig } from '../../engine/reference/reference-config.js';
import { CorpusEvents } from './corpus-events.js';
import { checkRequestHeaders, isLoopbackHost } from './request-guard.js';
import { setSecurityHeaders } from './security-headers.js';
import { defaultAssetsDir, resolveAsset } from './static-assets.js';
import { WebAuth } from './web-auth.js';
import { parseArguments } from './web-arguments.js';
import { createWebHandlers } from './web-handlers.js';
import type { WebHandlers, WebSearch } from './web-handlers.js';
import type { CatalogEngine, ListingMemo } from '../../catalog/session-catalog.js';
import { SessionCatalog } from '../../catalog/session-catalog.js';
import type { PreviewBudget } from './preview-view.js';
import { httpStatusOf, webErrorOf } from './web-reply.js';
import { WebServerError } from './web-server-error.js';

/** The largest API request body accepted (1 MiB); a larger one is `WEB_PAYLOAD_TOO_LARGE`. */
export const MAX_API_BODY_BYTES = 1024 * 1024;

/** How to start the server. */
export interface WebServerOptions {
  /** The (warm) engine every method reads through; its corpus change signal feeds the event stream. */
  readonly engine: CatalogEngine;
  /** The bind address: a loopback address or `localhost` (default `127.0.0.1`); anything else is refused. */
  readonly host?: string;
  /** The port; 0 (default) picks a free one. */
  readonly port?: number;
  /** The built page (default: the package's `dist/web/`). */
  readonly assetsDir?: string;
  /** The token (default: 32 random bytes, base64url); tests pass their own. */
  readonly token?: string;
  /** The reference limits the engine was built with (default: SESSION-REFERENCE.md §3's defaults). */
  readonly budget?: PreviewBudget;
  /**
   * The catalog every method answers through (`sessionctx serve` passes the one built with its configuration: page
   * size, DCP); default: a catalog over `engine` with the default page size and DCP's defaults.
   */
  readonly catalog?: SessionCatalog;
  /** Full-text search; without it `search/sessions` replies `SEARCH_UNAVAILABLE`. */
  readonly search?: WebSearch;
  /** The bound of open event streams (`GET /api/events`; default 32); one more is refused with `WEB_TOO_MANY_STREAMS`. */
  readonly maxEventStreams?: number;
  /**
   * The fewest sessions without a read title for which the first `sessions/list` is answered from the headers alone
   * (default 1,000, `corpus-events.ts`; tests lower it to see the path on a small root).
   */
  readonly quickListingMinPending?: number;
  /** The event streams' heartbeat interval (default 15 s). */
  readonly heartbeatMs?: number;
}

/** A started server. */
export interface RunningWebServer {
  /** What to open: `http://127.0.0.1:<port>/?token=<token>`. */
  readonly url: string;
  /** `http://127.0.0.1:<port>`. */
  readonly origin: string;
  readonly port: number;
  readonly token: string;
  /** Stops listening, ends every open connection and aborts the calls still running. Idempotent. */
  close(): Promise<void>;
}

/** The host part of a URL for a bind address (`[::1]` for IPv6). */
function urlHost(host: string): string {
  return isIP(host) === 6 ? `[${host}]` : host;
}

/** Writes a JSON reply (API responses are never cached). */
function sendJson(res: ServerResponse, status: number, reply: WebReply<unknown>): void {
  const body = JSON.stringify(reply);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-store',
  });
  res.end(body);
}

/** Writes a short plain-text page (the 401 of a wrong token, a 404). */
function sendText(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, {
    'Content-Type': 'text/plain; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-store',
    ...headers,
  });
  res.end(text);
}

/** The path of the event stream (docs/WEB.md "Live updates"): the one `GET` of the API. */
const EVENTS_PATH = '/api/events';

/** The methods a path takes, for a 405's `Allow`. */
function allowOf(pathname: string): string {
  if (pathname === EVENTS_PATH) return 'GET';
  return pathname.startsWith('/api/') ? 'POST' : 'GET, HEAD';
}

/** True when the request's method is one its path takes. */
function methodAllowed(method: string | undefined, pathname: string): boolean {
  if (pathname === EVENTS_PATH) return method === 'GET';
  return pathname.startsWith('/api/') ? method === 'POST' : method === 'GET' || method === 'HEAD';
}

/** The remote method of an API path, or `undefined`. */
function methodOf(pathname: string): WebMethod | undefined {
  const name = pathname.slice('/api/'.length);
  return (WEB_METHODS as readonly string[]).includes(name) ? (name as WebMethod) : undefined;
}

/** True when the request declares a JSON body (`application/json`, parameters such as `charset` allowed). */
function isJsonContent(req: IncomingMessage): boolean {
  const type = req.headers['content-type'];
  return type !== undefined && type.split(';')[0]?.trim().toLowerCase() === 'application/json';
}

/**
 * Reads a request body up to the limit.
 * @throws WebServerError `WEB_PAYLOAD_TOO_LARGE` as soon as the body (or its declared length) exceeds the limit.
 */
function readBody(req: IncomingMessage): Promise<string> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > MAX_API_BODY_BYTES) {
    return Promise.reject(tooLarge());
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (chunk: Buffer) => {
      if (over) return;
      size += chunk.length;
      if (size > MAX_API_BODY_BYTES) {
        over = true;
        chunks.length = 0;
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (!over) resolve(Buffer.concat(chunks).toString('utf8'));
    });
    req.on('error', reject);
    // A client that goes away mid-body never sends the rest: the call must not wait for it.
    req.on('close', () => {
      if (!req.complete && !over) reject(new Error('the client closed the request'));
    });
  });
}

function tooLarge(): WebServerError {
  return new WebServerError('WEB_PAYLOAD_TOO_LARGE', `the request body exceeds ${MAX_API_BODY_BYTES} bytes`);
}

/** One server's request handling. */
class WebRequestHandler {
  readonly #auth: WebAuth;
  readonly #handlers: WebHandlers;
  readonly #assetsDir: string;
  readonly #events: CorpusEvents;
  readonly #calls = new Set<AbortController>();
  #port = 0;
  #allowedHosts: ReadonlySet<string> = new Set();

  constructor(auth: WebAuth, handlers: WebHandlers, assetsDir: string, events: CorpusEvents) {
    this.#auth = auth;
    this.#handlers = handlers;
    this.#assetsDir = assetsDir;
    this.#events = events;
  }

  listening(port: number, bindHost: string): void {
    this.#port = port;
    this.#allowedHosts = new Set([urlHost(bindHost).toLowerCase()]);
  }

  /** Aborts every call still running (the server is closing). */
  abortAll(): void {
    for (const controller of this.#calls) controller.abort(new Error('the server is closing'));
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    setSecurityHeaders(res);
    // Until the URL is parsed, a failure is reported in the API's form when the raw path looks like the API's.
    let api = (req.url ?? '/').startsWith('/api/');
    try {
      const origin = checkRequestHeaders(req, this.#port, this.#allowedHosts);
      const url = new URL(req.url ?? '/', origin);
      // The parsed path decides (dot segments resolved), so `/x/../api/…` is the API and `/api/../x` is not.
      api = url.pathname.startsWith('/api/');
      if (!methodAllowed(req.method, url.pathname)) {
        res.setHeader('Allow', allowOf(url.pathname));
        throw new WebServerError('WEB_METHOD_NOT_ALLOWED', `${String(req.method)} is not allowed on ${url.pathname}`);
      }
      if (url.pathname === EVENTS_PATH) this.#openEvents(req, res, url);
      else if (api) await this.#api(req, res, url.pathname);
      else await this.#page(req, res, url);
    } catch (error) {
      // The request body is not wanted any more; drain it so the reply can be read.
      req.resume();
      if (res.headersSent || res.destroyed) {
        res.destroy();
        return;
      }
      const status = httpStatusOf(error);
      if (api) sendJson(res, status, { ok: false, error: webErrorOf(error) });
      else sendText(res, status, `${webErrorOf(error).message}\n`);
    }
  }

  async #page(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    if (url.pathname === '/' && url.searchParams.has('token')) {
      if (!this.#auth.acceptsToken(url.searchParams.get('token') ?? '')) {
        throw new WebServerError('WEB_UNAUTHORIZED', 'this token is not the one sessionctx serve printed');
      }
      // 303 to `/`: the token leaves the address bar (and the history entry the page runs under).
      sendText(res, 303, 'See /\n', { Location: '/', 'Set-Cookie': this.#auth.setCookieHeader() });
      return;
    }
    this.#requireCookie(req);
    const asset = await resolveAsset(this.#assetsDir, url.pathname);
    res.writeHead(200, { 'Content-Type': asset.contentType, 'Content-Length': asset.size, 'Cache-Control': 'no-cache' });
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    try {
      // `pipeline` closes the file when the client goes away mid-download, and cuts the reply when the file does.
      await pipeline(createReadStream(asset.path), res);
    } catch {
      // The client left, or the file vanished mid-read (a rebuild): the status is sent, so the connection is cut.
      res.destroy();
    }
  }

  #requireCookie(req: IncomingMessage): void {
    if (!this.#auth.hasCookie(req.headers.cookie)) {
      throw new WebServerError('WEB_UNAUTHORIZED', 'not signed in: open the URL sessionctx serve printed (it carries the token)');
    }
  }

  /** `GET /api/events`: the cookie, then a stream that catches up after `Last-Event-ID` (or `?since=`). */
  #openEvents(req: IncomingMessage, res: ServerResponse, url: URL): void {
    this.#requireCookie(req);
    const header = req.headers['last-event-id'];
    this.#events.open(res, typeof header === 'string' ? header : (url.searchParams.get('since') ?? undefined));
  }

  async #api(req: IncomingMessage, res: ServerResponse, pathname: string): Promise<void> {
    this.#requireCookie(req);
    const method = methodOf(pathname);
    if (method === undefined) throw new WebServerError('WEB_UNKNOWN_METHOD', `no remote method ${JSON.stringify(pathname.slice(5))}`);
    if (!isJsonContent(req)) throw new WebServerError('WEB_UNSUPPORTED_MEDIA_TYPE', 'the request body must be application/json');
    const text = await readBody(req);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (error) {
      throw new WebServerError('WEB_BAD_REQUEST', `the request body is not JSON: ${(error as Error).message}`, { cause: error });
    }
    const args = parseArguments(method, body);
    const controller = new AbortController();
    // A client that goes away before the reply is written (a new keystroke's lookup, a closed tab) aborts the call.
    const onClose = (): void => {
      if (!res.writableFinished) controller.abort(new Error('the client closed the request'));
    };
    res.once('close', onClose);
    this.#calls.add(controller);
    try {
      const handler = this.#handlers[method] as (args: unknown, context: { signal: AbortSignal }) => Promise<unknown>;
      const value = await handler(args, { signal: controller.signal });
      if (!res.destroyed) sendJson(res, 200, { ok: true, value });
    } finally {
      this.#calls.delete(controller);
    }
  }
}

/**
 * Starts the server.
 * @param options - the engine, where to listen, the page's directory and the token.
 * @returns the running server and the URL to open.
 * @throws WebServerError `WEB_HOST_NOT_LOOPBACK` for a host that is not a loopback address (nothing is bound),
 *   `WEB_INVALID_PORT` for a port outside 0–65535; the listen error (`EADDRINUSE`, …) when binding fails.
 */
export async function startWebServer(options: WebServerOptions): Promise<RunningWebServer> {
  const host = options.host ?? '127.0.0.1';
  if (!isLoopbackHost(host)) {
    throw new WebServerError(
      'WEB_HOST_NOT_LOOPBACK',
      `refusing to listen on ${JSON.stringify(host)}: sessionctx serve binds a loopback address only`,
    );
  }
  const port = options.port ?? 0;
  if (!Number.isSafeInteger(port) || port < 0 || port > 65535) {
    throw new WebServerError('WEB_INVALID_PORT', `the port must be an integer from 0 to 65535, not ${String(port)}`);
  }
  const bindHost = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  const auth = new WebAuth(options.token);
  const reference = options.budget ?? resolveReferenceConfig();
  const catalog = options.catalog ?? new SessionCatalog(options.engine, { pageSize: resolveReferenceConfig().candidateLimit });
  const catalogHandlers = createWebHandlers({
    catalog,
    budget: { maxReferenceBytes: reference.maxReferenceBytes, maxReferences: reference.maxReferences },
    search: options.search,
  });
  // Each listing of the stream reads again only the titles of sessions whose artifact changed since the last one.
  let memo: ListingMemo | undefined;
  const events = new CorpusEvents({
    list: async (signal) => {
      const again = await catalog.listAgain(memo, signal);
      memo = again.memo;
      return { sessions: [...again.listing.rows], skipped: again.listing.skipped };
    },
    // The headers-only listing leaves the memo alone: the first listing reads every title either way.
    quickList: async (signal) => {
      const quick = await catalog.listAgain(undefined, signal, { readTitles: false });
      return { sessions: [...quick.listing.rows], skipped: quick.listing.skipped };
    },
    onCorpusChange: (listener) => catalog.onCorpusChange(listener),
    ...(options.maxEventStreams === undefined ? {} : { maxStreams: options.maxEventStreams }),
    ...(options.quickListingMinPending === undefined ? {} : { quickListMinPending: options.quickListingMinPending }),
    ...(options.heartbeatMs === undefined ? {} : { heartbeatMs: options.heartbeatMs }),
  });
  // `sessions/list` shares the listing under way (the event stream's, another page's) instead of running a second one.
  const handlers: WebHandlers = { ...catalogHandlers, 'sessions/list': (_args, { signal }) => events.listing(signal) };
  const handler = new WebRequestHandler(auth, handlers, options.assetsDir ?? defaultAssetsDir(), events);
  const server: Server = createServer((req, res) => {
    void handler.handle(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, bindHost, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = (server.address() as AddressInfo).port;
  handler.listening(bound, bindHost);
  const origin = `http://${urlHost(bindHost)}:${bound}`;
  let closing: Promise<void> | undefined;
  return {
    url: `${origin}/?token=${auth.token}`,
    origin,
    port: bound,
    token: auth.token,
    close() {
      closing ??= new Promise<void>((resolve) => {
        handler.abortAll();
        // Open event streams never end by themselves: ended here, so `server.close` does not wait for them.
        events.close();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
