import { connectMongo, type Logger } from '@switchyard/shared';
import { InMemoryApiKeyStore, type ApiKeyStore } from '../auth/api-key-store';
import { ensureGatewayIndexes, MongoApiKeyStore, MongoOrganizationStore } from './mongo-stores';
import { InMemoryOrganizationStore, type OrganizationStore } from './organization-store';
import { MongoReservationStore } from '../metering/mongo-reservation-store';
import { InMemoryReservationStore, type ReservationStore } from '../metering/reservation-store';

export interface GatewayStores {
  organizations: OrganizationStore;
  apiKeys: ApiKeyStore;
  /** Hard-quota reservations (collection quota_reservations). */
  reservations: ReservationStore;
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
      reservations: new InMemoryReservationStore(),
      close: async () => undefined,
    };
  }
  const mongo = await connectMongo(config.mongodbUri, config.mongodbDatabase, logger);
  const reservations = new MongoReservationStore(mongo.db);
  try {
    await ensureGatewayIndexes(mongo.db);
    await reservations.ensureIndexes();
  } catch (error) {
    await mongo.close();
    throw error;
  }
  return { organizations: new MongoOrganizationStore(mongo.db), apiKeys: new MongoApiKeyStore(mongo.db), reservations, close: () => mongo.close() };
}
