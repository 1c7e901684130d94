import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import {
  callUnary,
  createClient,
  InMemoryEventBus,
  protos,
  type CallContext,
} from '@switchyard/shared';
import { silentLogger, waitFor } from '@switchyard/shared/testing';
import type { NotificationServiceClient } from '@switchyard/shared/proto/notification/v1';
import {
  createStores,
  loadNotificationConfig,
  startNotificationService,
  type NotificationServiceOptions,
  type RunningNotificationService,
} from '../src/server';

export interface ReceivedCall {
  headers: http.IncomingHttpHeaders;
  body: string;
  receivedAt: number;
  /** Set by the test when it knows the secret: whether standardwebhooks accepted the call. */
  verified?: boolean;
}

export type Responder = (
  call: ReceivedCall,
  index: number,
) => { status: number; headers?: Record<string, string>; body?: string; delayMs?: number };

/** A real HTTP receiver on 127.0.0.1, recording every call. */
export class Receiver {
  readonly calls: ReceivedCall[] = [];
  inFlight = 0;
  maxInFlight = 0;
  responder: Responder = () => ({ status: 200, body: 'ok' });
  private server?: http.Server;

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const call: ReceivedCall = {
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          receivedAt: Date.now(),
        };
        const index = this.calls.push(call) - 1;
        const answer = this.responder(call, index);
        this.inFlight++;
        this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
        setTimeout(() => {
          this.inFlight--;
          res.writeHead(answer.status, answer.headers ?? {});
          res.end(answer.body ?? '');
        }, answer.delayMs ?? 0);
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this;
  }

  get port(): number {
    return (this.server!.address() as AddressInfo).port;
  }

  url(path = '/hook'): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}

/** standardwebhooks' verdict on one received call (throws when the signature does not verify). */
export function verifyWithLibrary(secret: string, call: ReceivedCall): unknown {
  return new Webhook(secret).verify(call.body, {
    'webhook-id': String(call.headers['webhook-id']),
    'webhook-timestamp': String(call.headers['webhook-timestamp']),
    'webhook-signature': String(call.headers['webhook-signature']),
  });
}

export const TEST_ENV: NodeJS.ProcessEnv = {
  GRPC_HOST: '127.0.0.1',
  GRPC_PORT: '0',
  SWITCHYARD_MODE: 'distributed',
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
  WEBHOOK_REQUIRE_HTTPS: 'false',
  WEBHOOK_RETRY_SCHEDULE: '0,50ms,50ms',
  WEBHOOK_SWEEP_INTERVAL_MS: '25',
  WEBHOOK_TIMEOUT_MS: '2000',
};

export interface TestService {
  service: RunningNotificationService;
  bus: InMemoryEventBus;
  client: NotificationServiceClient;
  call<Res>(
    method: keyof NotificationServiceClient & string,
    request: object,
    organization?: string,
  ): Promise<Res>;
  stop(): Promise<void>;
}

export async function startTestService(
  env: NodeJS.ProcessEnv = {},
  extra: Partial<Pick<NotificationServiceOptions, 'resolver' | 'post'>> = {},
): Promise<TestService> {
  const bus = new InMemoryEventBus({ retryBaseMs: 5 });
  const config = loadNotificationConfig({ ...TEST_ENV, ...env });
  // As the process opens them: MongoDB and Redis when TEST_ENV or env name them, else in memory.
  const opened = await createStores(config, silentLogger());
  const service = await startNotificationService({
    config,
    bus,
    logger: silentLogger(),
    stores: opened.stores,
    ...extra,
  });
  const client = createClient(
    protos.notification().NotificationService,
    `127.0.0.1:${service.port}`,
  );
  return {
    service,
    bus,
    client,
    call: <Res>(method: string, request: object, organization = 'org_a') => {
      const context: CallContext = { organization, keyId: 'key_test', requestId: 'req_test' };
      const fn = (client as unknown as Record<string, Parameters<typeof callUnary>[1]>)[method]!;
      return callUnary(`notification`, fn, client, request, context, 5000) as Promise<Res>;
    },
    stop: async () => {
      client.close();
      await service.stop();
      await opened.close();
      await bus.close();
    },
  };
}

/** waitFor that resolves to the first defined, truthy value (typed without undefined). */
export async function until<T>(
  check: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 5000,
): Promise<T> {
  return (await waitFor(check, timeoutMs)) as T;
}
