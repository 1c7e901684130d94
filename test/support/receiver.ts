import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedCall {
  headers: IncomingHttpHeaders;
  rawBody: string;
  body: any;
  path: string;
  receivedAt: number;
}

export interface Answer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
}

/** The answer to a call; a promise holds the answer back until it settles (a receiver mid-answer). */
export type Responder = (call: ReceivedCall, index: number) => Answer | Promise<Answer>;

/** A real HTTP endpoint on loopback that records every webhook call it receives. */
export class WebhookReceiver {
  readonly calls: ReceivedCall[] = [];
  private server?: Server;
  private responder: Responder = () => ({ status: 200, body: 'ok' });

  respondWith(responder: Responder): this {
    this.responder = responder;
    return this;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const rawBody = Buffer.concat(chunks).toString('utf8');
        let body: unknown;
        try {
          body = JSON.parse(rawBody);
        } catch {
          body = undefined;
        }
        const call: ReceivedCall = {
          headers: req.headers,
          rawBody,
          body,
          path: req.url ?? '/',
          receivedAt: Date.now(),
        };
        this.calls.push(call);
        void Promise.resolve(this.responder(call, this.calls.length - 1)).then((answer) => {
          res.writeHead(answer.status, answer.headers);
          res.end(answer.body ?? '');
        });
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this;
  }

  get url(): string {
    const { port } = this.server!.address() as AddressInfo;
    return `http://127.0.0.1:${port}/hooks`;
  }

  async stop(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }
}
