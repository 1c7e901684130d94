import { connectMongo, type Logger } from '@switchyard/shared';
import type { RecommendationConfig } from '../config';
import { InMemoryInteractionStore, type InteractionStore } from './interaction-store';
import { InMemoryItemStore, type ItemStore } from './item-store';
import { MongoInteractionStore } from './mongo-interaction-store';
import { MongoItemStore } from './mongo-item-store';
import { MongoModelSnapshotStore } from './mongo-snapshot-store';
import { InMemoryModelSnapshotStore, type ModelSnapshotStore } from './snapshot-store';

export interface RecommendationStores {
  items: ItemStore;
  interactions: InteractionStore;
  snapshots: ModelSnapshotStore;
  /** Closes the database connection. */
  close(): Promise<void>;
}

/** MongoDB stores when MONGODB_URI is set (indexes created here), else in-memory ones. */
export async function createStores(
  config: RecommendationConfig,
  logger: Logger,
): Promise<RecommendationStores> {
  if (!config.mongodbUri) {
    logger.warn(
      'MONGODB_URI is not set: catalog and interactions are kept in memory and lost on restart',
    );
    return {
      items: new InMemoryItemStore(),
      interactions: new InMemoryInteractionStore(),
      snapshots: new InMemoryModelSnapshotStore(),
      close: async () => undefined,
    };
  }
  const mongo = await connectMongo(config.mongodbUri, config.mongodbDatabase, logger);
  try {
    const items = new MongoItemStore(mongo.db);
    const interactions = new MongoInteractionStore(mongo.db);
    const snapshots = new MongoModelSnapshotStore(mongo.db);
    await items.ensureIndexes();
    await interactions.ensureIndexes();
    await snapshots.ensureIndexes();
    return { items, interactions, snapshots, close: () => mongo.close() };
  } catch (error) {
    await mongo.close();
    throw error;
  }
}
