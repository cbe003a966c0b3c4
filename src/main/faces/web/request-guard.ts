/**
 * The checks every request passes before anything else runs (docs/WEB.md "Security model"): the server is only for
 * pages it served itself, on a loopback address. `Host` defeats DNS rebinding (a hostile name that resolves to
 * 127.0.0.1 still sends its own name), `Origin` and `Sec-Fetch-Site` refuse requests another page started, even one
 * on another port of this machine (same-site, not same-origin).
 */
import { isIP } from 'node:net';
import type { IncomingHttpHeaders } from 'node:http';
import { WebServerError } from './web-server-error.js';

/** The host names a browser on this machine uses for a loopback server. */
const LOOPBACK_NAMES: ReadonlySet<string> = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * True for a bind address on the loopback interface: `localhost`, an IPv4 address in 127.0.0.0/8, or `::1`.
 * @param host - the `host` option as given.
 */
export function isLoopbackHost(host: string): boolean {
  if (host === 'localhost') return true;
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  switch (isIP(bare)) {
    case 4:
      return bare.split('.')[0] === '127';
    case 6:
      return bare === '::1' || bare === '0:0:0:0:0:0:0:1';
    default:
      return false;
  }
}

/** One header's value (`undefined` when absent); repeated copies are joined, so they never equal one allowed value. */
function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(',') : value;
}

/** The headers a request may carry once only: Node keeps the first `Host` of several and drops the others. */
const SINGLE_HEADERS: ReadonlySet<string> = new Set(['host', 'origin']);

/**
 * Refuses a request that repeats `Host` or `Origin`. Node's parser keeps the first `Host` and silently drops the
 * rest (`req.headers.host` is never a list), so only the raw header list shows a second one; a proxy or server that
 * reads the last copy would see another host than this check.
 * @param rawHeaders - the request's `rawHeaders` (names and values alternating, as received).
 * @throws WebServerError `WEB_DUPLICATE_HEADER`.
 */
function refuseRepeatedHeaders(rawHeaders: readonly string[]): void {
  const seen = new Set<string>();
  for (let index = 0; index < rawHeaders.length; index += 2) {
    const name = (rawHeaders[index] as string).toLowerCase();
    if (!SINGLE_HEADERS.has(name)) continue;
    if (seen.has(name)) throw new WebServerError('WEB_DUPLICATE_HEADER', `the request carries more than one ${name} header`);
    seen.add(name);
  }
}

/** What the guard reads of a request (a `node:http` `IncomingMessage` has both). */
export interface GuardedRequest {
  readonly headers: IncomingHttpHeaders;
  readonly rawHeaders: readonly string[];
}

/**
 * Checks `Host`, `Origin` and `Sec-Fetch-Site` of one request (`sessionctx serve` and `sessionctx mcp --http`).
 * @param request - the request's headers and raw header list.
 * @param port - the port the server listens on.
 * @param boundNames - the bind address as a URL host (`127.0.0.2`, `[::1]`), also accepted as a name.
 * @returns the request's origin (`http://<host>`), which a present `Origin` equalled.
 * @throws WebServerError `WEB_DUPLICATE_HEADER`, `WEB_FORBIDDEN_HOST`, `WEB_FORBIDDEN_ORIGIN` or `WEB_FORBIDDEN_FETCH_SITE`.
 */
export function checkRequestHeaders(request: GuardedRequest, port: number, boundNames: ReadonlySet<string>): string {
  refuseRepeatedHeaders(request.rawHeaders);
  const { headers } = request;
  const host = single(headers.host) ?? '';
  const colon = host.lastIndexOf(':');
  const name = colon < 0 ? host : host.slice(0, colon);
  const hostPort = colon < 0 ? '' : host.slice(colon + 1);
  if (!(LOOPBACK_NAMES.has(name.toLowerCase()) || boundNames.has(name.toLowerCase())) || hostPort !== String(port)) {
    throw new WebServerError('WEB_FORBIDDEN_HOST', `Host ${JSON.stringify(host)} is not this server (a loopback name with port ${port})`);
  }
  const origin = `http://${name.toLowerCase()}:${port}`;
  const sentOrigin = single(headers.origin);
  if (sentOrigin !== undefined && sentOrigin !== origin) {
    throw new WebServerError('WEB_FORBIDDEN_ORIGIN', `Origin ${JSON.stringify(sentOrigin)} is not this server's origin ${origin}`);
  }
  const site = single(headers['sec-fetch-site']);
  // `same-site` is refused too: another port of this host is the same site but another origin.
  if (site === 'cross-site' || site === 'same-site') {
    throw new WebServerError('WEB_FORBIDDEN_FETCH_SITE', `a ${site} request is refused: only this server's own page may call it`);
  }
  return origin;
}
