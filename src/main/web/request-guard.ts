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

/**
 * Checks `Host`, `Origin` and `Sec-Fetch-Site` of one request.
 * @param headers - the request's headers.
 * @param port - the port the server listens on.
 * @param boundNames - the bind address as a URL host (`127.0.0.2`, `[::1]`), also accepted as a name.
 * @returns the request's origin (`http://<host>`), which a present `Origin` equalled.
 * @throws WebServerError `WEB_FORBIDDEN_HOST`, `WEB_FORBIDDEN_ORIGIN` or `WEB_FORBIDDEN_FETCH_SITE`.
 */
export function checkRequestHeaders(headers: IncomingHttpHeaders, port: number, boundNames: ReadonlySet<string>): string {
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
