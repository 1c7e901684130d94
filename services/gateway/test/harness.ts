import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { silentLogger } from '@switchyard/shared/testing';
import { createGatewayApp, createGatewayClients, InMemoryApiKeyStore, type ApiKeyRecord, type GatewayClients } from '../src/server';
import { closeGatewayClients } from '../src/clients';
import { allDoubles, startDoubles, type Doubles } from './doubles';

export interface HarnessOptions {
  deadlineMs?: number;
  bodyLimitBytes?: number;
}

export interface SendOptions {
  body?: unknown;
  /** Sent as is (no JSON encoding). */
  raw?: string;
  headers?: Record<string, string>;
  /** false: no Authorization header. */
  auth?: boolean;
}

export interface Reply {
  status: number;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  requestId: string;
}

export interface Harness {
  baseUrl: string;
  key: string;
  record: ApiKeyRecord;
  apiKeys: InMemoryApiKeyStore;
  doubles: Doubles;
  clients: GatewayClients;
  send(method: string, path: string, options?: SendOptions): Promise<Reply>;
  stop(): Promise<void>;
}

async function parse(response: Response): Promise<Reply> {
  const text = await response.text();
  const isJson = (response.headers.get('content-type') ?? '').includes('application/json');
  return {
    status: response.status,
    headers: response.headers,
    body: isJson && text ? JSON.parse(text) : text,
    requestId: response.headers.get('x-request-id') ?? '',
  };
}

/** The gateway app on port 0 with real gRPC clients pointed at the doubles. */
export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const doubles = await startDoubles();
  const apiKeys = new InMemoryApiKeyStore();
  const { key, record } = await apiKeys.issue('org_test');
  const clients = createGatewayClients(
    {
      contentAddr: doubles.content.address,
      assistantAddr: doubles.assistant.address,
      recommendationAddr: doubles.recommendation.address,
      notificationAddr: doubles.notification.address,
    },
    options.deadlineMs ?? 5000,
  );
  const app = createGatewayApp({
    config: { bodyLimitBytes: options.bodyLimitBytes ?? 1_048_576 },
    logger: silentLogger(),
    clients,
    apiKeys,
    defaultResultUrlCacheMs: 0,
  });
  const server: Server = createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    baseUrl,
    key,
    record,
    apiKeys,
    doubles,
    clients,
    async send(method, path, opts = {}) {
      const headers: Record<string, string> = { ...(opts.auth === false ? {} : { authorization: `X-API-Key ${key}` }) };
      let body: string | undefined = opts.raw;
      if (opts.body !== undefined) {
        body = JSON.stringify(opts.body);
        headers['content-type'] = 'application/json';
      }
      return parse(await fetch(baseUrl + path, { method, headers: { ...headers, ...opts.headers }, body }));
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      closeGatewayClients(clients);
      await Promise.all(allDoubles(doubles).map((d) => d.stop()));
    },
  };
}

export function resetDoubles(harness: Harness): void {
  for (const double of allDoubles(harness.doubles)) double.reset();
}
