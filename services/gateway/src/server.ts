import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import {
  connectRedis,
  createEventBus,
  createSharedState,
  dependencyHealth,
  type EventBus,
  type Logger,
  type RunningService,
  loadTokenizer,
} from '@switchyard/shared';
import { bootstrapDevOrganization } from './accounts/dev-organization';
import { notificationPolicyPusher } from './accounts/policy';
import { createGatewayApp } from './app';
import { closeGatewayClients, createGatewayClients } from './clients';
import type { GatewayConfig } from './config';
import { DurableQuota } from './metering/durable-quota';
import { CounterSettlements } from './metering/settlements';
import { RefusalCounts } from './metering/refusals';
import { ChangeFeed } from './events/change-feed';
import { clientErrorHandler, connectHandler } from './middleware/client-error';
import { createStores } from './store';
import { InMemoryResponseCacheStore } from './store/response-cache/memory';
import type { ResponseCacheStore } from './store/response-cache/port';
import { RedisResponseCacheStore } from './store/response-cache/redis';

/**
 * Node's defaults wait 300 s for a request body shorter than its Content-Length, and look for
 * late requests only every 30 s: a timed-out request is found within a second here, and answered
 * 408 with the error body by clientErrorHandler (ERR_HTTP_REQUEST_TIMEOUT).
 */
function httpServerOptions(config: GatewayConfig) {
  return {
    requestTimeout: config.requestTimeoutMs,
    headersTimeout: config.headersTimeoutMs,
    connectionsCheckingInterval: Math.min(1000, config.headersTimeoutMs),
  };
}

function listen(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
}

export interface GatewayOptions {
  config: GatewayConfig;
  logger: Logger;
  /** The bus the change feed reads (embedded mode shares the mesh's); default: Kafka when KAFKA_BROKERS is set. */
  bus?: EventBus;
  /** Metrics of services sharing this process (embedded mode), served on /metrics too. */
  metricsRegistries?: Registry[];
  /** The clock of key expiry and quota months (tests move it). */
  now?: () => Date;
}

/** The change feed on the given bus, or on one of the gateway's own (closed with the feed). */
async function openChangeFeed(
  options: GatewayOptions,
): Promise<{ feed: ChangeFeed; bus: EventBus; close(): Promise<void> }> {
  const owned = options.bus
    ? undefined
    : await createEventBus({
        kafkaBrokers: options.config.kafkaBrokers,
        clientId: 'gateway',
        logger: options.logger,
      });
  const bus = (options.bus ?? owned)!;
  const feed = new ChangeFeed(bus, options.logger);
  await feed.start();
  return {
    feed,
    bus,
    close: async () => {
      await feed.stop();
      await owned?.close();
    },
  };
}

/** Answers in Redis, shared by the replicas, when REDIS_URL is set; else in this process, bounded. */
async function openResponseCache(
  config: GatewayConfig,
  logger: Logger,
): Promise<ResponseCacheStore> {
  if (!config.redisUrl.trim())
    return new InMemoryResponseCacheStore({
      maxEntries: config.responseCacheMaxEntries,
      maxBytes: config.responseCacheMaxBytes,
    });
  const redis = await connectRedis(config.redisUrl, logger);
  return new RedisResponseCacheStore(redis, 'switchyard:gateway:', logger, true);
}

export async function startGateway(options: GatewayOptions): Promise<RunningService> {
  const { config, logger } = options;
  // Quota reservations estimate tokens: the encoding is loaded now, not on the first call.
  loadTokenizer();
  const opened = await createStores(config, logger);
  const { stores } = opened;
  const sharedState = await createSharedState({
    redisUrl: config.redisUrl,
    prefix: 'switchyard:gateway:',
    logger,
  });
  const responseCache = await openResponseCache(config, logger).catch(async (error) => {
    await sharedState.close();
    await opened.close();
    throw error;
  });
  const clients = createGatewayClients(config, config.grpcDeadlineMs);
  const pushPolicy = notificationPolicyPusher(clients.notification);
  const changes = await openChangeFeed(options);
  const release = async () => {
    await changes.close();
    closeGatewayClients(clients);
    await sharedState.close();
    await responseCache.close();
    await opened.close();
  };
  const durableQuota = new DurableQuota(stores.quotaTallies);
  const settlements = new CounterSettlements(sharedState.counters, logger);
  const refusals = new RefusalCounts(changes.bus, logger);
  let stopDevPush = (): void => undefined;
  let server: Server;
  let port: number;
  try {
    if (config.devApiKey) {
      stopDevPush = await bootstrapDevOrganization({
        organizations: stores.organizations,
        apiKeys: stores.apiKeys,
        pushPolicy,
        defaultRateLimits: {
          requestsPerMinute: config.defaultRequestsPerMinute,
          tokensPerMinute: config.defaultTokensPerMinute,
        },
        devApiKey: config.devApiKey,
        monthlyTokenQuota: config.devMonthlyTokenQuota,
        hardQuota: config.devHardQuota,
        logger,
      });
    }
    const app = createGatewayApp({
      config,
      logger,
      clients,
      apiKeys: stores.apiKeys,
      organizations: stores.organizations,
      teams: stores.teams,
      durableQuota,
      sharedState,
      settlements,
      pushPolicy,
      changes: changes.feed,
      events: changes.bus,
      refusals,
      dependencies: () => dependencyHealth.status(),
      metricsRegistries: options.metricsRegistries,
      now: options.now,
      responseCache,
    });
    server = createServer(httpServerOptions(config), app.callback());
    server.keepAliveTimeout = config.keepAliveTimeoutMs;
    server.on('clientError', clientErrorHandler(logger));
    server.on('connect', connectHandler(logger));
    port = await listen(server, config.host, config.port);
  } catch (error) {
    stopDevPush();
    await release();
    throw error;
  }
  logger.info(
    {
      host: config.host,
      port,
      devKey: Boolean(config.devApiKey),
      adminApi: Boolean(config.adminToken),
    },
    'gateway listening',
  );
  return {
    name: 'gateway',
    port,
    stop: async () => {
      stopDevPush();
      await close(server); // finishes requests in flight before the clients go away
      await settlements.close(); // their settlements
      await durableQuota.close();
      await refusals.close();
      await release();
    },
  };
}
