/**
 * `sessionctx mcp --http`: the MCP server over the SDK's Streamable HTTP transport, for clients that connect by URL.
 * Loopback only, with the header checks of `sessionctx serve` (`web/request-guard.ts`: one `Host` that is a loopback
 * name with this port — DNS rebinding —, a present `Origin` equal to this server's, no cross-site fetch), and a
 * per-run token: every request carries it as the URL's `token` parameter (the printed URL has it) or as
 * `Authorization: Bearer <token>`. Each client session (`Mcp-Session-Id`) gets its own SDK server and transport over
 * the one engine, so one client's roots never rank another's discovery.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { checkRequestHeaders, isLoopbackHost } from '../web/request-guard.js';
import { randomSecret, sameSecret } from '../web/web-auth.js';
import { WebServerError } from '../web/web-server-error.js';

/** The path the MCP endpoint answers on. */
export const MCP_HTTP_PATH = '/mcp';

/** How the HTTP server is started. */
export interface McpHttpServerOptions {
  /** A new SDK server for one client session (not yet connected). */
  readonly createServer: () => Server;
  /** The loopback address to bind (default `127.0.0.1`). */
  readonly host?: string;
  /** The port (default 0: any free port). */
  readonly port?: number;
  /** The token (default: 32 random bytes, base64url); tests pass their own. */
  readonly token?: string;
}

/** A running HTTP MCP server. */
export interface RunningMcpHttpServer {
  /** What a client connects to: `http://127.0.0.1:<port>/mcp?token=<token>`. */
  readonly url: string;
  readonly port: number;
  readonly token: string;
  /** Closes every client session and the listener. Idempotent. */
  close(): Promise<void>;
}

/** A JSON-RPC error reply outside any session (a refused request, an unknown session). */
function sendJsonRpcError(res: ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}): void {
  const body = JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } });
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body), ...headers });
  res.end(body);
}

/** The URL host of a bind address (`[::1]` for an IPv6 address). */
function urlHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/** One client session: its transport and the SDK server connected to it. */
interface McpHttpSession {
  readonly transport: StreamableHTTPServerTransport;
  readonly server: Server;
}

/**
 * Starts the server.
 * @param options - the per-session server factory, where to listen and the token.
 * @returns the running server and the URL to give a client.
 * @throws WebServerError `WEB_HOST_NOT_LOOPBACK` for a host that is not a loopback address (nothing is bound),
 *   `WEB_INVALID_PORT` for a port outside 0–65535; the listen error (`EADDRINUSE`, …) when binding fails.
 */
export async function startMcpHttpServer(options: McpHttpServerOptions): Promise<RunningMcpHttpServer> {
  const host = options.host ?? '127.0.0.1';
  if (!isLoopbackHost(host)) {
    throw new WebServerError(
      'WEB_HOST_NOT_LOOPBACK',
      `refusing to listen on ${JSON.stringify(host)}: sessionctx mcp --http binds a loopback address only`,
    );
  }
  const port = options.port ?? 0;
  if (!Number.isSafeInteger(port) || port < 0 || port > 65535) {
    throw new WebServerError('WEB_INVALID_PORT', `the port must be an integer from 0 to 65535, not ${String(port)}`);
  }
  const bindHost = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  const token = options.token ?? randomSecret();
  const sessions = new Map<string, McpHttpSession>();
  let bound = 0;
  let allowedHosts: ReadonlySet<string> = new Set();

  const authorized = (req: IncomingMessage, url: URL): boolean => {
    const fromQuery = url.searchParams.get('token');
    if (fromQuery !== null) return sameSecret(fromQuery, token);
    const authorization = req.headers.authorization;
    return authorization?.startsWith('Bearer ') === true && sameSecret(authorization.slice('Bearer '.length).trim(), token);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    let url: URL;
    try {
      const origin = checkRequestHeaders(req, bound, allowedHosts);
      url = new URL(req.url ?? '/', origin);
    } catch (error) {
      req.resume();
      const status = error instanceof WebServerError ? error.status : 400;
      sendJsonRpcError(res, status, ErrorCode.InvalidRequest, error instanceof Error ? error.message : String(error));
      return;
    }
    if (url.pathname !== MCP_HTTP_PATH) {
      req.resume();
      sendJsonRpcError(res, 404, ErrorCode.InvalidRequest, `no MCP endpoint at ${url.pathname}; it is ${MCP_HTTP_PATH}`);
      return;
    }
    if (!authorized(req, url)) {
      req.resume();
      sendJsonRpcError(res, 401, ErrorCode.InvalidRequest, 'this request does not carry the token sessionctx mcp --http printed', {
        'WWW-Authenticate': 'Bearer',
      });
      return;
    }
    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      const session = sessions.get(sessionId);
      if (session === undefined) {
        req.resume();
        sendJsonRpcError(res, 404, ErrorCode.InvalidRequest, 'no such MCP session (it ended, or this server restarted): initialize again');
        return;
      }
      await session.transport.handleRequest(req, res);
      return;
    }
    // No session yet: the transport accepts only an initialize request here, and answers anything else itself.
    const server = options.createServer();
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, server });
      },
      onsessionclosed: (id) => {
        sessions.delete(id);
      },
    });
    const closed = server.onclose;
    server.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
      closed?.();
    };
    await server.connect(transport);
    await transport.handleRequest(req, res);
    if (transport.sessionId === undefined) await server.close();
  };

  const http: HttpServer = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (res.headersSent) res.destroy();
      else sendJsonRpcError(res, 500, ErrorCode.InternalError, error instanceof Error ? error.message : String(error));
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(port, bindHost, () => {
      http.off('error', reject);
      resolve();
    });
  });
  bound = (http.address() as AddressInfo).port;
  allowedHosts = new Set([urlHost(bindHost).toLowerCase()]);
  let closing: Promise<void> | undefined;
  return {
    url: `http://${urlHost(bindHost)}:${bound}${MCP_HTTP_PATH}?token=${token}`,
    port: bound,
    token,
    close() {
      closing ??= (async () => {
        await Promise.all([...sessions.values()].map((session) => session.server.close().catch(() => undefined)));
        sessions.clear();
        await new Promise<void>((resolve) => {
          http.close(() => resolve());
          http.closeAllConnections();
        });
      })();
      return closing;
    },
  };
}
