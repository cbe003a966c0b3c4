/**
 * A forward HTTP proxy for browser tests that cut connections (issue 28 item 2): the browser sends every request
 * through it (`launchChromium({proxy})`), it forwards each one unchanged (the `Host` header included, so the server's
 * checks see what the browser sent) and records it, and a test can cut the open exchanges of a path — as a network
 * that drops a connection does — and hold new requests of that path until it releases them.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, request, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request as the proxy saw it. */
export interface ProxiedRequest {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
}

/** The proxy. */
export class CuttingProxy {
  /** Every request so far, in arrival order. */
  readonly requests: ProxiedRequest[] = [];
  readonly #server: Server;
  readonly #open = new Set<{ readonly path: string; readonly cut: () => void }>();
  readonly #held: (() => void)[] = [];
  #holding: string | undefined;

  private constructor(server: Server) {
    this.#server = server;
  }

  /** Starts a proxy on a free loopback port. */
  static async start(): Promise<CuttingProxy> {
    const server = createServer();
    const proxy = new CuttingProxy(server);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => proxy.#forward(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  /** `http://127.0.0.1:<port>`, for the browser's proxy setting. */
  get url(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  /**
   * Cuts every open exchange whose path starts with `prefix` (both sides' connections are destroyed).
   * @returns how many were cut
   */
  cut(prefix: string): number {
    let count = 0;
    for (const exchange of [...this.#open]) {
      if (!exchange.path.startsWith(prefix)) continue;
      exchange.cut();
      count += 1;
    }
    return count;
  }

  /** New requests whose path starts with `prefix` wait until {@link release}. */
  hold(prefix: string): void {
    this.#holding = prefix;
  }

  /** Forwards the held requests and holds no more. */
  release(): void {
    this.#holding = undefined;
    for (const forward of this.#held.splice(0)) forward();
  }

  /** Stops the proxy and cuts what is open. */
  async close(): Promise<void> {
    for (const exchange of [...this.#open]) exchange.cut();
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  /** One request (an absolute URL: the browser speaks to a forward proxy). */
  #forward(req: IncomingMessage, res: ServerResponse): void {
    const target = new URL(req.url ?? '/');
    const path = `${target.pathname}${target.search}`;
    this.requests.push({ path, headers: { ...req.headers } });
    const headers = { ...req.headers };
    delete headers['proxy-connection'];
    const go = (): void => {
      const upstream = request({ host: target.hostname, port: target.port, method: req.method, path, headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      const exchange = {
        path,
        cut: () => {
          upstream.destroy();
          req.socket.destroy();
        },
      };
      this.#open.add(exchange);
      res.once('close', () => this.#open.delete(exchange));
      upstream.on('error', () => req.socket.destroy());
      req.pipe(upstream);
    };
    if (this.#holding !== undefined && path.startsWith(this.#holding)) this.#held.push(go);
    else go();
  }
}
