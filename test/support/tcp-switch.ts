/**
 * A loopback port in front of a real server that a test can switch off and on (issue 29: a PostgreSQL that goes away
 * and comes back). While on, each connection is piped to the target; switching off stops listening (new connections
 * are refused, `ECONNREFUSED`) and cuts every open connection (statements in flight fail as on a server restart).
 * Nothing is imitated: the bytes are the real server's.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';

/** A switchable forwarder from a free loopback port to `127.0.0.1:targetPort`. */
export class TcpSwitch {
  readonly #targetPort: number;
  readonly #sockets = new Set<Socket>();
  #server: Server | undefined;
  /** The port clients connect to (fixed once started). */
  port = 0;

  private constructor(targetPort: number) {
    this.#targetPort = targetPort;
  }

  /** Starts forwarding on a free port. */
  static async start(targetPort: number): Promise<TcpSwitch> {
    const forwarder = new TcpSwitch(targetPort);
    await forwarder.on();
    return forwarder;
  }

  /** Listens (again, on the same port) and forwards. */
  async on(): Promise<void> {
    if (this.#server !== undefined) return;
    const server = createServer((client) => {
      const upstream = connect(this.#targetPort, '127.0.0.1');
      for (const socket of [client, upstream]) {
        this.#sockets.add(socket);
        socket.on('close', () => this.#sockets.delete(socket));
        socket.on('error', () => undefined);
      }
      client.pipe(upstream);
      upstream.pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    const address = server.address();
    this.port = typeof address === 'object' && address !== null ? address.port : 0;
    this.#server = server;
  }

  /** Stops listening and cuts every open connection. */
  async off(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    for (const socket of this.#sockets) socket.destroy();
    if (server !== undefined) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
