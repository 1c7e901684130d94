import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createInMemorySharedState,
  UrlPolicy,
  type DependencyName,
  type EventPublisher,
  type SharedState,
} from '@switchyard/shared';
import { silentLogger } from '@switchyard/shared/testing';
import { createGatewayApp } from '../src/app';
import { issueApiKey } from '../src/auth/api-keys';
import {
  InMemoryApiKeyStore,
  InMemoryOrganizationStore,
  type ApiKeyRecord,
  type ApiKeyStore,
  type OrganizationStore,
  type TeamStore,
} from '../src/store';
import { closeGatewayClients, createGatewayClients, type GatewayClients } from '../src/clients';
import type { ChangeFeed } from '../src/events/change-feed';
import { allDoubles, startDoubles, type Doubles } from './doubles';

export const TEST_ADMIN_TOKEN = 'adm_test_0123456789abcdef';

export interface HarnessOptions {
  /** Where the gateway's own events go (usage.quota_exhausted, usage.refused). */
  events?: EventPublisher;
  deadlineMs?: number;
  bodyLimitBytes?: number;
  /** Default 0 (no cache), so revocations show at once unless a test wants the TTL. */
  keyCacheTtlMs?: number;
  /** Default TEST_ADMIN_TOKEN; null: ADMIN_TOKEN unset. */
  adminToken?: string | null;
  defaultRequestsPerMinute?: number;
  defaultOutputTokens?: number;
  keyMaxConcurrentRequests?: number;
  /** IDEMPOTENCY_LEASE_MS (default 3000). */
  idempotencyLeaseMs?: number;
  /** What /readyz reports of the shared dependencies (default: none). */
  dependencies?: () => Partial<Record<DependencyName, 'up' | 'down'>>;
  /** A second replica: pass the first one's doubles, stores and shared state (they stay the first one's to stop). */
  doubles?: Doubles;
  apiKeys?: ApiKeyStore;
  organizations?: OrganizationStore;
  /** Replicas share one (teams and their budgets). */
  teams?: TeamStore;
  sharedState?: SharedState;
  /** Changes the replica's caches follow; without one they expire by TTL only. */
  changes?: ChangeFeed;
  /** Default 0 (no cache); undefined with `changes`: the gateway's default for a change-fed cache. */
  defaultResultUrlCacheMs?: number;
}

export interface SendOptions {
  body?: unknown;
  /** Sent as is (no JSON encoding). */
  raw?: string;
  headers?: Record<string, string>;
  /** false: no Authorization header. */
  auth?: boolean;
  /** Another API key than the harness's own. */
  key?: string;
}

export interface Reply {
  status: number;
  headers: Headers;

  body: any;
  requestId: string;
}

export interface Harness {
  baseUrl: string;
  key: string;
  record: ApiKeyRecord;
  apiKeys: ApiKeyStore;
  organizations: OrganizationStore;
  sharedState: SharedState;
  doubles: Doubles;
  clients: GatewayClients;
  send(method: string, path: string, options?: SendOptions): Promise<Reply>;
  /** A call to the admin API with the admin token. */
  admin(method: string, path: string, body?: unknown): Promise<Reply>;
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
  const ownsDoubles = !options.doubles;
  const doubles = options.doubles ?? (await startDoubles());
  const apiKeys = options.apiKeys ?? new InMemoryApiKeyStore();
  const organizations = options.organizations ?? new InMemoryOrganizationStore();
  const sharedState = options.sharedState ?? createInMemorySharedState();
  const { key, record } = await issueApiKey(apiKeys, 'org_test');
  const clients = createGatewayClients(
    {
      contentAddr: doubles.content.address,
      assistantAddr: doubles.assistant.address,
      recommendationAddr: doubles.recommendation.address,
      notificationAddr: doubles.notification.address,
    },
    options.deadlineMs ?? 5000,
  );
  const adminToken =
    options.adminToken === null ? undefined : (options.adminToken ?? TEST_ADMIN_TOKEN);
  const app = createGatewayApp({
    config: {
      bodyLimitBytes: options.bodyLimitBytes ?? 1_048_576,
      adminToken,
      keyCacheTtlMs: options.keyCacheTtlMs ?? 0,
      defaultRequestsPerMinute: options.defaultRequestsPerMinute,
      defaultOutputTokens: options.defaultOutputTokens,
      keyMaxConcurrentRequests: options.keyMaxConcurrentRequests,
      grpcDeadlineMs: options.deadlineMs ?? 5000,
      idempotencyLeaseMs: options.idempotencyLeaseMs,
    },
    logger: silentLogger(),
    clients,
    apiKeys,
    organizations,
    teams: options.teams,
    sharedState,
    defaultResultUrlCacheMs: options.changes
      ? options.defaultResultUrlCacheMs
      : (options.defaultResultUrlCacheMs ?? 0),
    changes: options.changes,
    events: options.events,
    dependencies: options.dependencies,
    // Distributed-mode rules; example.com names resolve to a public documentation address (no DNS in tests).
    urlPolicy: new UrlPolicy(
      { requireHttps: false, allowPrivateNetworks: false, allowlist: [] },
      async () => [{ address: '93.184.215.14', family: 4 }],
    ),
  });
  const server: Server = createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  async function send(method: string, path: string, opts: SendOptions = {}): Promise<Reply> {
    const headers: Record<string, string> = {
      ...(opts.auth === false ? {} : { authorization: `X-API-Key ${opts.key ?? key}` }),
    };
    let body: string | undefined = opts.raw;
    if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] = 'application/json';
    }
    return parse(
      await fetch(baseUrl + path, { method, headers: { ...headers, ...opts.headers }, body }),
    );
  }

  return {
    baseUrl,
    key,
    record,
    apiKeys,
    organizations,
    sharedState,
    doubles,
    clients,
    send,
    admin: (method, path, body) =>
      send(method, path, {
        body,
        auth: false,
        headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
      }),
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      closeGatewayClients(clients);
      if (ownsDoubles) await Promise.all(allDoubles(doubles).map((d) => d.stop()));
    },
  };
}

export function resetDoubles(harness: Harness): void {
  for (const double of allDoubles(harness.doubles)) double.reset();
}
