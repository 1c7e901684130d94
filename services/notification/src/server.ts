import {
  protos,
  SERVICE_NAMES,
  startGrpcServer,
  type EventBus,
  type Logger,
  type RunningService,
} from '@switchyard/shared';
import type { NotificationConfig } from './config';
import { DeliveryEngine } from './delivery/engine';
import type { HttpPost, HttpResponse } from './delivery/http-sender';
import { subscribeConsumers } from './events/consumers';
import { notifyWebhookDisabled } from './events/webhook-disabled';
import { WebhookFanOut } from './events/fan-out';
import { EventSchemas } from './event-types/schemas';
import { notificationHandlers } from './handlers';
import { OrgSigningSecrets } from './signing/org-secrets';
import { UrlPolicy, type Resolver } from '@switchyard/shared';
import { ChangePublishingWebhookStore, inMemoryStores, type NotificationStores } from './store';
import { LedgerSweeper } from './usage/ledger-sweeper';
import { UsageLedger } from './usage/usage-ledger';

export { loadNotificationConfig, type NotificationConfig } from './config';
export { verifyWebhook } from './signing/verify';
export { metricsText, notificationMetrics } from './metrics';
export { createStores } from './store';
export { UrlPolicy, type Resolver, type UrlCheck } from '@switchyard/shared';
export type { NotificationStores } from './store';

export interface NotificationServiceOptions {
  config: NotificationConfig;
  bus: EventBus;
  logger: Logger;
  /** Defaults to in-memory stores (createStores opens MongoDB and Redis ones); they stay the caller's to close. */
  stores?: NotificationStores;
  /** DNS for the URL policy; tests fake it. */
  resolver?: Resolver;
  /** HTTP transport for deliveries; tests may replace it. */
  post?: (request: HttpPost) => Promise<HttpResponse>;
  /** Consumer group of the event consumers (default 'notification'); a new group rebuilds from the retained log. */
  consumerGroup?: string;
}

export interface RunningNotificationService extends RunningService {
  stores: NotificationStores;
  sweeper: LedgerSweeper;
}

export async function startNotificationService(
  options: NotificationServiceOptions,
): Promise<RunningNotificationService> {
  const { config, bus, logger } = options;
  const stored = options.stores ?? inMemoryStores();
  const stores: NotificationStores = {
    ...stored,
    webhooks: new ChangePublishingWebhookStore(stored.webhooks, bus, logger),
  };
  const policy = new UrlPolicy(config.urlPolicy, options.resolver);
  const orgSecrets = new OrgSigningSecrets(stores.signingSecrets, config.devSigningSecret);
  const engine: DeliveryEngine = new DeliveryEngine({
    deliveries: stores.deliveries,
    dueQueue: stores.dueQueue,
    rateLimits: stores.rateLimits,
    webhooks: stores.webhooks,
    orgSecrets,
    policy,
    config: config.delivery,
    logger,
    post: options.post,
    onWebhookDisabled: (webhook, reason, at) => notifyWebhookDisabled(fanOut, webhook, reason, at),
  });
  const fanOut = new WebhookFanOut(stores.webhooks, engine, stores.events);
  const eventSchemas = new EventSchemas();
  engine.start();
  const sweeper = new LedgerSweeper({
    ledger: new UsageLedger(stores.usageLedger),
    thresholds: { stores, fanOut, bus, defaults: config.usage },
    staleMs: config.usage.ledgerSweepMs,
    logger,
  });
  sweeper.start();
  const release = async () => {
    await sweeper.stop();
    await engine.stop();
  };
  // The consumer groups are joined while the gRPC server loads its protos and binds, not after: a
  // replica restarted after a kill -9 waits about a second in JoinGroup for its dead predecessor
  // to be dropped, so the sooner it asks, the sooner its partitions are served again; the API
  // does not wait for the join either. Every store and the engine are ready before either starts.
  const [subscribed, bound] = await Promise.allSettled([
    subscribeConsumers({
      bus,
      stores,
      engine,
      config,
      logger,
      eventSchemas,
      group: options.consumerGroup,
    }),
    // In an async function: a throw while the protos load is a rejection, not a leaked subscription.
    (async () =>
      startGrpcServer({
        host: config.grpcHost,
        port: config.grpcPort,
        unixSocket: config.grpcUnixSocket,
        services: [
          {
            name: SERVICE_NAMES.NotificationService,
            definition: protos.notification().NotificationService.service,
            handlers: notificationHandlers({
              stores,
              engine,
              orgSecrets,
              policy,
              config,
              eventSchemas,
              bus,
            }),
          },
        ],
        logger,
      }))(),
  ]);
  if (bound.status === 'rejected' || subscribed.status === 'rejected') {
    if (subscribed.status === 'fulfilled') await subscribed.value.close();
    if (bound.status === 'fulfilled') await bound.value.stop();
    await release();
    throw bound.status === 'rejected' ? bound.reason : (subscribed as PromiseRejectedResult).reason;
  }
  const server = bound.value;
  const subscription = subscribed.value;
  logger.info({ port: server.port, mode: config.mode }, 'notification service started');
  return {
    name: 'notification',
    port: server.port,
    stores,
    sweeper,
    stop: async () => {
      await subscription.close();
      await sweeper.stop();
      await server.stop();
      await engine.stop();
    },
  };
}
