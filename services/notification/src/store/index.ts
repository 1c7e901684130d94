import { connectMongo, type Logger } from '@switchyard/shared';
import type { Db } from 'mongodb';
import type { NotificationConfig } from '../config';
import { ensureIndexes } from './collections';
import { InMemoryEventTypeStore } from './event-types/memory';
import { MongoEventTypeStore } from './event-types/mongo';
import type { EventTypeStore } from './event-types/port';
import { InMemoryDeliveryStore } from './deliveries/memory';
import { MongoDeliveryStore } from './deliveries/mongo';
import type { DeliveryStore } from './deliveries/port';
import { InMemoryPolicyStore } from './policies/memory';
import { MongoPolicyStore } from './policies/mongo';
import type { PolicyStore } from './policies/port';
import { SecretBox } from './secret-box';
import { InMemorySigningSecretStore } from './signing-secrets/memory';
import { MongoSigningSecretStore } from './signing-secrets/mongo';
import type { SigningSecretStore } from './signing-secrets/port';
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
  signingSecrets: SigningSecretStore;
  usageLedger: UsageLedgerStore;
  thresholds: ThresholdStore;
  policies: PolicyStore;
  eventTypes: EventTypeStore;
}

export function inMemoryStores(): NotificationStores {
  return {
    webhooks: new InMemoryWebhookStore(),
    deliveries: new InMemoryDeliveryStore(),
    signingSecrets: new InMemorySigningSecretStore(),
    usageLedger: new InMemoryUsageLedgerStore(),
    thresholds: new InMemoryThresholdStore(),
    policies: new InMemoryPolicyStore(),
    eventTypes: new InMemoryEventTypeStore(),
  };
}

/** Every notification store on one database (indexes must exist: ensureIndexes). */
export function mongoStores(db: Db, box: SecretBox): NotificationStores {
  return {
    webhooks: new MongoWebhookStore(db, box),
    deliveries: new MongoDeliveryStore(db),
    signingSecrets: new MongoSigningSecretStore(db, box),
    usageLedger: new MongoUsageLedgerStore(db),
    thresholds: new MongoThresholdStore(db),
    policies: new MongoPolicyStore(db),
    eventTypes: new MongoEventTypeStore(db),
  };
}

/** Stores plus how to release what they hold (the Mongo connection). */
export interface OpenedStores {
  stores: NotificationStores;
  backend: 'memory' | 'mongo';
  close(): Promise<void>;
}

/**
 * Mongo stores when MONGODB_URI is set (indexes created first), else in-memory ones. Without
 * SECRETS_ENCRYPTION_KEY (only allowed in embedded mode) a random key is used for this process,
 * so secrets stored now do not decrypt after a restart.
 */
export async function createStores(
  config: NotificationConfig,
  logger: Logger,
): Promise<OpenedStores> {
  if (!config.mongodbUri)
    return { stores: inMemoryStores(), backend: 'memory', close: async () => {} };
  let key = config.secretsEncryptionKey;
  if (!key) {
    logger.warn(
      'SECRETS_ENCRYPTION_KEY is not set: using a random key for this process; stored webhook secrets will not decrypt after a restart',
    );
    key = SecretBox.generateKey();
  }
  const connection = await connectMongo(config.mongodbUri, config.mongodbDatabase, logger);
  try {
    await ensureIndexes(connection.db);
  } catch (error) {
    await connection.close();
    throw error;
  }
  return {
    stores: mongoStores(connection.db, new SecretBox(key, config.secretsEncryptionOldKeys)),
    backend: 'mongo',
    close: () => connection.close(),
  };
}

export { Collections, ensureIndexes } from './collections';
export * from './deliveries/port';
export * from './event-types/port';
export { InMemoryEventTypeStore } from './event-types/memory';
export { MongoEventTypeStore } from './event-types/mongo';
export { InMemoryDeliveryStore } from './deliveries/memory';
export { MongoDeliveryStore, newLeaseOwner } from './deliveries/mongo';
export * from './policies/port';
export { InMemoryPolicyStore } from './policies/memory';
export { MongoPolicyStore } from './policies/mongo';
export { SecretBox } from './secret-box';
export * from './signing-secrets/port';
export { InMemorySigningSecretStore } from './signing-secrets/memory';
export { MongoSigningSecretStore } from './signing-secrets/mongo';
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
