import { connectMongo, connectRedis, type Logger, type OpenedStores } from '@switchyard/shared';
import type { Db } from 'mongodb';
import type { NotificationConfig } from '../config';
import { ensureIndexes } from './collections';
import { InMemoryEventStore } from './events/memory';
import { MongoEventStore } from './events/mongo';
import type { EventStore } from './events/port';
import { InMemoryEventTypeStore } from './event-types/memory';
import { MongoEventTypeStore } from './event-types/mongo';
import type { EventTypeStore } from './event-types/port';
import { InMemoryDeliveryStore } from './deliveries/memory';
import { MongoDeliveryStore } from './deliveries/mongo';
import type { DeliveryStore } from './deliveries/port';
import { InMemoryDueQueue } from './due-queue/memory';
import type { DueQueue } from './due-queue/port';
import { RedisDueQueue } from './due-queue/redis';
import { InMemoryRateLimits } from './rate-limits/memory';
import type { RateLimits } from './rate-limits/port';
import { RedisRateLimits } from './rate-limits/redis';
import { InMemoryPolicyStore } from './policies/memory';
import { MongoPolicyStore } from './policies/mongo';
import type { PolicyStore } from './policies/port';
import { SecretBox } from './secret-box';
import { InMemorySigningSecretStore } from './signing-secrets/memory';
import { MongoSigningSecretStore } from './signing-secrets/mongo';
import type { SigningSecretStore } from './signing-secrets/port';
import { InMemoryRejectedEventStore } from './rejected-events/memory';
import { MongoRejectedEventStore } from './rejected-events/mongo';
import type { RejectedEventStore } from './rejected-events/port';
import { InMemoryThresholdStore } from './thresholds/memory';
import { MongoThresholdStore } from './thresholds/mongo';
import type { ThresholdStore } from './thresholds/port';
import { InMemoryUsageLedgerStore } from './usage-ledger/memory';
import { MongoUsageLedgerStore } from './usage-ledger/mongo';
import type { UsageLedgerStore } from './usage-ledger/port';
import { InMemoryWebhookStore } from './webhooks/memory';
import { MongoWebhookStore } from './webhooks/mongo';
import type { WebhookStore } from './webhooks/port';

export interface NotificationStores {
  webhooks: WebhookStore;
  deliveries: DeliveryStore;
  /** Pending deliveries by due time and their claims: Redis when REDIS_URL is set. */
  dueQueue: DueQueue;
  /** Send slots of rate-limited webhooks: Redis when REDIS_URL is set (shared by the replicas). */
  rateLimits: RateLimits;
  signingSecrets: SigningSecretStore;
  usageLedger: UsageLedgerStore;
  thresholds: ThresholdStore;
  policies: PolicyStore;
  eventTypes: EventTypeStore;
  /** Events sent to the dead-letter topic: each is sent once. */
  rejectedEvents: RejectedEventStore;
  /** Recent events accepted and fanned out, for a bounded time (GET /api/v2/events). */
  events: EventStore;
}

/** How long recent events are kept by default (EVENT_RETENTION). */
export const DEFAULT_EVENT_RETENTION_MS = 7 * 24 * 3600_000;

export function inMemoryStores(eventRetentionMs = DEFAULT_EVENT_RETENTION_MS): NotificationStores {
  return {
    webhooks: new InMemoryWebhookStore(),
    deliveries: new InMemoryDeliveryStore(),
    dueQueue: new InMemoryDueQueue(),
    rateLimits: new InMemoryRateLimits(),
    signingSecrets: new InMemorySigningSecretStore(),
    usageLedger: new InMemoryUsageLedgerStore(),
    thresholds: new InMemoryThresholdStore(),
    policies: new InMemoryPolicyStore(),
    eventTypes: new InMemoryEventTypeStore(),
    rejectedEvents: new InMemoryRejectedEventStore(),
    events: new InMemoryEventStore(eventRetentionMs),
  };
}

/** Every notification store on one database (indexes must exist: ensureIndexes), and the Redis ones. */
export function mongoStores(
  db: Db,
  box: SecretBox,
  shared: SharedStores = { dueQueue: new InMemoryDueQueue(), rateLimits: new InMemoryRateLimits() },
  eventRetentionMs = DEFAULT_EVENT_RETENTION_MS,
): NotificationStores {
  return {
    webhooks: new MongoWebhookStore(db, box),
    deliveries: new MongoDeliveryStore(db),
    ...shared,
    signingSecrets: new MongoSigningSecretStore(db, box),
    usageLedger: new MongoUsageLedgerStore(db),
    thresholds: new MongoThresholdStore(db),
    policies: new MongoPolicyStore(db),
    eventTypes: new MongoEventTypeStore(db),
    rejectedEvents: new MongoRejectedEventStore(db),
    events: new MongoEventStore(db, eventRetentionMs),
  };
}

/** What the replicas share in Redis: the due queue and the rate limits' send slots. */
export interface SharedStores {
  dueQueue: DueQueue;
  rateLimits: RateLimits;
}

/**
 * The due queue and send slots in Redis when REDIS_URL is set (one connection, the queue's to
 * close); else in this process (the queue filled from the delivery log at start), which is right
 * for one replica only.
 */
async function openSharedStores(config: NotificationConfig, logger: Logger): Promise<SharedStores> {
  if (!config.redisUrl) {
    if (config.mongodbUri)
      logger.warn(
        'REDIS_URL is not set: the webhook due queue stays in this process (one replica only)',
      );
    return { dueQueue: new InMemoryDueQueue(), rateLimits: new InMemoryRateLimits() };
  }
  const redis = await connectRedis(config.redisUrl, logger);
  // Named after the delivery log's database: the queue holds that log's pending deliveries.
  const prefix = `switchyard:notification:${config.mongodbDatabase}:`;
  return {
    dueQueue: new RedisDueQueue(redis, prefix, true),
    rateLimits: new RedisRateLimits(redis, prefix),
  };
}

/**
 * Mongo stores when MONGODB_URI is set (indexes created first), else in-memory ones; the due
 * queue in Redis when REDIS_URL is set. Without SECRETS_ENCRYPTION_KEY (only allowed in embedded
 * mode) a random key is used for this process, so secrets stored now do not decrypt after a
 * restart.
 */
export async function createStores(
  config: NotificationConfig,
  logger: Logger,
): Promise<OpenedStores<NotificationStores>> {
  if (!config.mongodbUri) {
    const shared = await openSharedStores(config, logger);
    return {
      stores: { ...inMemoryStores(config.eventRetentionMs), ...shared },
      close: () => shared.dueQueue.close(),
    };
  }
  let key = config.secretsEncryptionKey;
  if (!key) {
    logger.warn(
      'SECRETS_ENCRYPTION_KEY is not set: using a random key for this process; stored webhook secrets will not decrypt after a restart',
    );
    key = SecretBox.generateKey();
  }
  // Redis and MongoDB connect side by side (a restart serves sooner); whichever opened is closed
  // if the other fails.
  const [sharedOpened, mongoOpened] = await Promise.allSettled([
    openSharedStores(config, logger),
    connectMongo(config.mongodbUri, config.mongodbDatabase, logger).then(async (connection) => {
      try {
        await ensureIndexes(connection.db);
        return connection;
      } catch (error) {
        await connection.close();
        throw error;
      }
    }),
  ]);
  if (sharedOpened.status === 'rejected' || mongoOpened.status === 'rejected') {
    if (sharedOpened.status === 'fulfilled') await sharedOpened.value.dueQueue.close();
    if (mongoOpened.status === 'fulfilled') await mongoOpened.value.close();
    throw sharedOpened.status === 'rejected'
      ? sharedOpened.reason
      : (mongoOpened as PromiseRejectedResult).reason;
  }
  const shared = sharedOpened.value;
  const connection = mongoOpened.value;
  return {
    stores: mongoStores(
      connection.db,
      new SecretBox(key, config.secretsEncryptionOldKeys),
      shared,
      config.eventRetentionMs,
    ),
    close: async () => {
      await connection.close();
      await shared.dueQueue.close();
    },
  };
}

export { Collections, ensureIndexes } from './collections';
export * from './deliveries/port';
export * from './events/port';
export { InMemoryEventStore } from './events/memory';
export { MongoEventStore } from './events/mongo';
export * from './event-types/port';
export { InMemoryEventTypeStore } from './event-types/memory';
export { MongoEventTypeStore } from './event-types/mongo';
export { InMemoryDeliveryStore } from './deliveries/memory';
export { MongoDeliveryStore } from './deliveries/mongo';
export * from './due-queue/port';
export { InMemoryDueQueue } from './due-queue/memory';
export { RedisDueQueue } from './due-queue/redis';
export type { RateLimits } from './rate-limits/port';
export { InMemoryRateLimits } from './rate-limits/memory';
export { RedisRateLimits } from './rate-limits/redis';
export * from './policies/port';
export { InMemoryPolicyStore } from './policies/memory';
export { MongoPolicyStore } from './policies/mongo';
export { SecretBox } from './secret-box';
export * from './signing-secrets/port';
export { InMemorySigningSecretStore } from './signing-secrets/memory';
export { MongoSigningSecretStore } from './signing-secrets/mongo';
export * from './rejected-events/port';
export { InMemoryRejectedEventStore } from './rejected-events/memory';
export { MongoRejectedEventStore } from './rejected-events/mongo';
export * from './thresholds/port';
export { InMemoryThresholdStore } from './thresholds/memory';
export { MongoThresholdStore } from './thresholds/mongo';
export * from './usage-ledger/port';
export { InMemoryUsageLedgerStore } from './usage-ledger/memory';
export { MongoUsageLedgerStore } from './usage-ledger/mongo';
export * from './webhooks/port';
export { ChangePublishingWebhookStore } from './webhooks/change-publishing';
export { InMemoryWebhookStore } from './webhooks/memory';
export { MongoWebhookStore } from './webhooks/mongo';
