import { connectMongo, type Logger } from '@switchyard/shared';
import { InMemoryApiKeyStore, type ApiKeyStore } from '../auth/api-key-store';
import { ensureGatewayIndexes, MongoApiKeyStore, MongoOrganizationStore } from './mongo-stores';
import { InMemoryOrganizationStore, type OrganizationStore } from './organization-store';
import { MongoQuotaTallyStore } from '../metering/mongo-quota-tally-store';
import { InMemoryQuotaTallyStore, type QuotaTallyStore } from '../metering/quota-tally-store';

export interface GatewayStores {
  organizations: OrganizationStore;
  apiKeys: ApiKeyStore;
  /** Hard-quota tallies (collection quota_tallies). */
  quotaTallies: QuotaTallyStore;
  close(): Promise<void>;
}

/** MongoDB stores when MONGODB_URI is set (indexes created now), else in-memory ones. */
export async function createGatewayStores(
  config: { mongodbUri?: string; mongodbDatabase: string },
  logger: Logger,
): Promise<GatewayStores> {
  if (!config.mongodbUri) {
    return {
      organizations: new InMemoryOrganizationStore(),
      apiKeys: new InMemoryApiKeyStore(),
      quotaTallies: new InMemoryQuotaTallyStore(),
      close: async () => undefined,
    };
  }
  const mongo = await connectMongo(config.mongodbUri, config.mongodbDatabase, logger);
  const quotaTallies = new MongoQuotaTallyStore(mongo.db);
  try {
    await ensureGatewayIndexes(mongo.db);
    await quotaTallies.ensureIndexes();
  } catch (error) {
    await mongo.close();
    throw error;
  }
  return {
    organizations: new MongoOrganizationStore(mongo.db),
    apiKeys: new MongoApiKeyStore(mongo.db),
    quotaTallies,
    close: () => mongo.close(),
  };
}
