import {
  connectMongo,
  InMemoryOutboxStore,
  MongoOutboxStore,
  type Logger,
  type OpenedStores,
  type OutboxStore,
} from '@switchyard/shared';
import type { RecommendationConfig } from '../config';
import { InMemoryInteractionStore } from './interactions/memory';
import { MongoInteractionStore } from './interactions/mongo';
import type { InteractionStore } from './interactions/port';
import { InMemoryItemStore } from './items/memory';
import { MongoItemStore } from './items/mongo';
import type { ItemStore } from './items/port';
import { InMemoryModelSnapshotStore } from './snapshots/memory';
import { MongoModelSnapshotStore } from './snapshots/mongo';
import type { ModelSnapshotStore } from './snapshots/port';

/** The service's stores: the catalog, the interaction log and the published models. */
export interface RecommendationStores {
  items: ItemStore;
  interactions: InteractionStore;
  snapshots: ModelSnapshotStore;
  /** Usage events the bus refused, kept until relayed (default: in memory). */
  outbox?: OutboxStore;
}

export function inMemoryStores(): RecommendationStores {
  return {
    items: new InMemoryItemStore(),
    interactions: new InMemoryInteractionStore(),
    snapshots: new InMemoryModelSnapshotStore(),
    outbox: new InMemoryOutboxStore(),
  };
}

/** MongoDB stores when MONGODB_URI is set (indexes created here), else in-memory ones. */
export async function createStores(
  config: RecommendationConfig,
  logger: Logger,
): Promise<OpenedStores<RecommendationStores>> {
  if (!config.mongodbUri) {
    logger.warn(
      'MONGODB_URI is not set: catalog and interactions are kept in memory and lost on restart',
    );
    return { stores: inMemoryStores(), close: async () => undefined };
  }
  const mongo = await connectMongo(config.mongodbUri, config.mongodbDatabase, logger);
  try {
    const items = new MongoItemStore(mongo.db);
    const interactions = new MongoInteractionStore(mongo.db);
    const snapshots = new MongoModelSnapshotStore(mongo.db);
    const outbox = new MongoOutboxStore(mongo.db);
    for (const store of [items, interactions, snapshots, outbox]) await store.ensureIndexes();
    return { stores: { items, interactions, snapshots, outbox }, close: () => mongo.close() };
  } catch (error) {
    await mongo.close();
    throw error;
  }
}

export { CachedItemStore } from './items/cached';
export { InMemoryItemStore, MongoItemStore, type ItemStore };
export { InMemoryInteractionStore, MongoInteractionStore, type InteractionStore };
export type { InteractionToStore } from './interactions/port';
export { InMemoryModelSnapshotStore, MongoModelSnapshotStore, type ModelSnapshotStore };
export type { ModelSnapshot } from './snapshots/port';
