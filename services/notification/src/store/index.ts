import { connectMongo, type Logger } from '@switchyard/shared';
import type { NotificationConfig } from '../config';
import { InMemoryDeliveryStore, type DeliveryStore } from './delivery-store';
import { InMemorySigningSecretStore, type SigningSecretStore } from './signing-secret-store';
import { InMemoryPolicyStore, type PolicyStore } from './policy-store';
import { InMemoryThresholdStore, type ThresholdStore } from './threshold-store';
import { InMemoryUsageLedgerStore, type UsageLedgerStore } from './usage-ledger-store';
import { InMemoryWebhookStore, type WebhookStore } from './webhook-store';
import { ensureIndexes, mongoStores } from './mongo';
import { SecretBox } from './secret-box';

export interface NotificationStores {
  webhooks: WebhookStore;
  deliveries: DeliveryStore;
  signingSecrets: SigningSecretStore;
  usageLedger: UsageLedgerStore;
  thresholds: ThresholdStore;
  policies: PolicyStore;
}

export function inMemoryStores(): NotificationStores {
  return {
    webhooks: new InMemoryWebhookStore(),
    deliveries: new InMemoryDeliveryStore(),
    signingSecrets: new InMemorySigningSecretStore(),
    usageLedger: new InMemoryUsageLedgerStore(),
    thresholds: new InMemoryThresholdStore(),
    policies: new InMemoryPolicyStore(),
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
  if (!config.mongo.uri)
    return { stores: inMemoryStores(), backend: 'memory', close: async () => {} };
  let key = config.secretsEncryptionKey;
  if (!key) {
    logger.warn(
      'SECRETS_ENCRYPTION_KEY is not set: using a random key for this process; stored webhook secrets will not decrypt after a restart',
    );
    key = SecretBox.generateKey();
  }
  const connection = await connectMongo(config.mongo.uri, config.mongo.database, logger);
  try {
    await ensureIndexes(connection.db);
  } catch (error) {
    await connection.close();
    throw error;
  }
  return {
    stores: mongoStores(connection.db, new SecretBox(key)),
    backend: 'mongo',
    close: () => connection.close(),
  };
}

export * from './delivery-store';
export * from './signing-secret-store';
export * from './policy-store';
export * from './threshold-store';
export * from './usage-ledger-store';
export * from './webhook-store';
export { SecretBox } from './secret-box';
export { Collections, ensureIndexes, mongoStores } from './mongo';
