import { connectMongo, type Logger, type OpenedStores } from '@switchyard/shared';
import type { Db } from 'mongodb';
import { InMemoryApiKeyStore } from './api-keys/memory';
import { MongoApiKeyStore } from './api-keys/mongo';
import type { ApiKeyStore } from './api-keys/port';
import { ensureIndexes } from './collections';
import { InMemoryOrganizationStore } from './organizations/memory';
import { MongoOrganizationStore } from './organizations/mongo';
import type { OrganizationStore } from './organizations/port';
import { InMemoryQuotaTallyStore } from './quota-tallies/memory';
import { MongoQuotaTallyStore } from './quota-tallies/mongo';
import type { QuotaTallyStore } from './quota-tallies/port';
import { InMemoryTeamStore } from './teams/memory';
import { MongoTeamStore } from './teams/mongo';
import type { TeamStore } from './teams/port';

export interface GatewayStores {
  organizations: OrganizationStore;
  apiKeys: ApiKeyStore;
  /** Hard-quota tallies (collection quota_tallies). */
  quotaTallies: QuotaTallyStore;
  teams: TeamStore;
}

export function inMemoryStores(): GatewayStores {
  return {
    organizations: new InMemoryOrganizationStore(),
    apiKeys: new InMemoryApiKeyStore(),
    quotaTallies: new InMemoryQuotaTallyStore(),
    teams: new InMemoryTeamStore(),
  };
}

/** Every gateway store on one database (indexes must exist: ensureIndexes). */
export function mongoStores(db: Db): GatewayStores {
  return {
    organizations: new MongoOrganizationStore(db),
    apiKeys: new MongoApiKeyStore(db),
    quotaTallies: new MongoQuotaTallyStore(db),
    teams: new MongoTeamStore(db),
  };
}

/** MongoDB stores when MONGODB_URI is set (indexes created first), else in-memory ones. */
export async function createStores(
  config: { mongodbUri?: string; mongodbDatabase: string },
  logger: Logger,
): Promise<OpenedStores<GatewayStores>> {
  if (!config.mongodbUri) return { stores: inMemoryStores(), close: async () => undefined };
  const connection = await connectMongo(config.mongodbUri, config.mongodbDatabase, logger);
  try {
    await ensureIndexes(connection.db);
  } catch (error) {
    await connection.close();
    throw error;
  }
  return { stores: mongoStores(connection.db), close: () => connection.close() };
}

export { ensureIndexes, GatewayCollections } from './collections';
export * from './api-keys/port';
export { InMemoryApiKeyStore } from './api-keys/memory';
export { MongoApiKeyStore } from './api-keys/mongo';
export * from './organizations/port';
export { InMemoryOrganizationStore } from './organizations/memory';
export { MongoOrganizationStore } from './organizations/mongo';
export * from './quota-tallies/port';
export { InMemoryQuotaTallyStore } from './quota-tallies/memory';
export { MongoQuotaTallyStore, QUOTA_TALLIES_COLLECTION } from './quota-tallies/mongo';
export * from './teams/port';
export { InMemoryTeamStore } from './teams/memory';
export { MongoTeamStore } from './teams/mongo';
