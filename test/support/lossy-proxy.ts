import { connect, createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A TCP proxy in front of a gRPC service that can lose answers: while losing, what the client sends
 * still reaches the service (the call runs to its end) but nothing comes back, as when a network
 * path drops or a load balancer dies between the work and the answer.
 */
export class LossyProxy {
  private server?: Server;
  private losing = false;
  private readonly tainted = new Set<Socket>();
  private readonly clients = new Set<Socket>();

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  async start(): Promise<number> {
    this.server = createServer((client) => this.pipe(client));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return (this.server.address() as AddressInfo).port;
  }

  /** From now on the service's bytes are dropped on every connection. */
  loseAnswers(): void {
    this.losing = true;
  }

  /** Passes everything again; connections that lost bytes are closed (their HTTP/2 state is broken). */
  restore(): void {
    this.losing = false;
    for (const socket of this.tainted) socket.destroy();
    this.tainted.clear();
  }

  async stop(): Promise<void> {
    for (const socket of this.clients) socket.destroy();
    await new Promise<void>((resolve) =>
      this.server ? this.server.close(() => resolve()) : resolve(),
    );
  }

  private pipe(client: Socket): void {
    const upstream = connect(this.targetPort, this.targetHost);
    this.clients.add(client);
    client.on('data', (chunk) => upstream.write(chunk));
    upstream.on('data', (chunk) => {
      if (this.losing) this.tainted.add(client);
      else client.write(chunk);
    });
    const close = () => {
      this.clients.delete(client);
      this.tainted.delete(client);
      client.destroy();
      upstream.destroy();
    };
    client.on('close', close).on('error', close);
    upstream.on('close', close).on('error', close);
  }
}
