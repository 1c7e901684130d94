import { connect, createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A TCP proxy in front of a server (Redis, MongoDB) that can play an outage without touching the
 * server, which others may share: down() drops every connection and refuses new ones (they are
 * closed at once, as by a stopped server), up() lets them through again.
 */
export class OutageProxy {
  private server?: Server;
  private isDown = false;
  private readonly sockets = new Set<Socket>();

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  /** A proxy for the host:port of a URL (redis://..., mongodb://...). */
  static forUrl(url: string): OutageProxy {
    const { hostname, port } = new URL(url);
    return new OutageProxy(hostname, Number(port));
  }

  async start(): Promise<number> {
    this.server = createServer((client) => this.pipe(client));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this.port;
  }

  get port(): number {
    return (this.server!.address() as AddressInfo).port;
  }

  /** The URL with this proxy's address instead of the server's. */
  urlFor(url: string): string {
    const proxied = new URL(url);
    proxied.hostname = '127.0.0.1';
    proxied.port = String(this.port);
    return proxied.toString();
  }

  down(): void {
    this.isDown = true;
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
  }

  up(): void {
    this.isDown = false;
  }

  async stop(): Promise<void> {
    this.down();
    await new Promise<void>((resolve) =>
      this.server ? this.server.close(() => resolve()) : resolve(),
    );
  }

  private pipe(client: Socket): void {
    if (this.isDown) {
      client.destroy();
      return;
    }
    const upstream = connect(this.targetPort, this.targetHost);
    this.sockets.add(client).add(upstream);
    client.pipe(upstream);
    upstream.pipe(client);
    const close = () => {
      this.sockets.delete(client);
      this.sockets.delete(upstream);
      client.destroy();
      upstream.destroy();
    };
    client.on('close', close).on('error', close);
    upstream.on('close', close).on('error', close);
  }
}
