import {
  DataUpdatedPublisher,
  protos,
  SERVICE_NAMES,
  startGrpcServer,
  unary,
  type EventBus,
  type Logger,
  type RunningService,
} from '@switchyard/shared';
import type { RecommendationServiceHandlers } from '@switchyard/shared/generated/switchyard/recommendation/v1/RecommendationService';
import type { RecommendationConfig } from './config';
import { ReplicaEvents } from './events/interaction-events';
import { createRecommendationHandlers, type HandlerDeps } from './handlers';
import { ModelRegistry } from './model/model-registry';
import { RebuildScheduler } from './model/rebuild-scheduler';
import { UserProfiles } from './model/user-profiles';
import { InMemoryInteractionStore, type InteractionStore } from './store/interaction-store';
import { CachedItemStore } from './store/cached-item-store';
import { InMemoryItemStore, type ItemStore } from './store/item-store';
import { InMemoryModelSnapshotStore, type ModelSnapshotStore } from './store/snapshot-store';

export { loadRecommendationConfig, type RecommendationConfig } from './config';
export {
  createRecommendationHandlers,
  type HandlerDeps,
  type RecommendationHandlers,
} from './handlers';
export { ModelRegistry } from './model/model-registry';
export { InMemoryItemStore, type ItemStore } from './store/item-store';
export { InMemoryInteractionStore, type InteractionStore } from './store/interaction-store';
export { InMemoryModelSnapshotStore, type ModelSnapshotStore } from './store/snapshot-store';
export { MongoItemStore } from './store/mongo-item-store';
export { MongoInteractionStore } from './store/mongo-interaction-store';
export { MongoModelSnapshotStore } from './store/mongo-snapshot-store';
export { createStores, type RecommendationStores } from './store/index';

export const SERVICE_NAME = SERVICE_NAMES.RecommendationService;
const STOP_GRACE_MS = 5000;

export interface RecommendationStoresInUse {
  items: ItemStore;
  interactions: InteractionStore;
  snapshots: ModelSnapshotStore;
}

export interface RecommendationServiceOptions {
  config: RecommendationConfig;
  bus: EventBus;
  logger: Logger;
  /** Defaults to in-memory stores; persistent implementations drop in here. */
  stores?: RecommendationStoresInUse;
}

/**
 * Everything a replica serves from: stores, the published model, cached profiles, the rebuild
 * schedule and the replica events (subscribed, so this replica hears the others).
 */
export async function createReplica(options: RecommendationServiceOptions) {
  const { config, bus, logger } = options;
  const stores = options.stores ?? {
    items: new InMemoryItemStore(),
    interactions: new InMemoryInteractionStore(),
    snapshots: new InMemoryModelSnapshotStore(),
  };
  const replicaEvents = new ReplicaEvents(bus, logger);
  const models = new ModelRegistry({
    interactions: stores.interactions,
    snapshots: stores.snapshots,
    logger,
    training: config.training,
    halfLifeDays: config.decayHalfLifeDays,
    announce: (organization, version, algorithm) =>
      replicaEvents.modelPublished(organization, version, algorithm),
  });
  const profiles = new UserProfiles(
    stores.interactions,
    config.decayHalfLifeDays,
    config.profileCacheSize,
  );
  const scheduler = new RebuildScheduler(
    models,
    stores.interactions,
    config.rebuild,
    logger,
    config.replicaId,
  );
  const items = new CachedItemStore(stores.items, config.itemCacheSize);
  const subscription = await replicaEvents.subscribe(config.replicaId, { profiles, models, items });
  // Serve the published models at once; organizations without one get trained soon.
  await models.refreshAll();
  for (const organization of await stores.interactions.organizations()) {
    if (await models.isStale(organization)) scheduler.interactionsRecorded(organization);
  }
  scheduler.start();
  const deps: HandlerDeps = {
    ...stores,
    items,
    models,
    profiles,
    scheduler,
    publisher: new DataUpdatedPublisher(bus, logger, 'recommendation'),
    replicaEvents,
    maxBatchSize: config.maxBatchSize,
    logger,
  };
  return {
    deps,
    handlers: createRecommendationHandlers(deps),
    async close(): Promise<void> {
      scheduler.stop();
      await subscription.close();
    },
  };
}

export async function startRecommendationService(
  options: RecommendationServiceOptions,
): Promise<RunningService> {
  const { config, logger } = options;
  const replica = await createReplica(options);
  const handlers = replica.handlers;
  const implementation: RecommendationServiceHandlers = {
    Recommend: unary(logger, handlers.Recommend),
    UpsertItems: unary(logger, handlers.UpsertItems),
    RecordInteractions: unary(logger, handlers.RecordInteractions),
    GetItem: unary(logger, handlers.GetItem),
    DeleteItem: unary(logger, handlers.DeleteItem),
    RebuildModel: unary(logger, handlers.RebuildModel),
  };
  const server = await startGrpcServer({
    host: config.grpcHost,
    port: config.grpcPort,
    unixSocket: config.grpcUnixSocket,
    services: [
      {
        name: SERVICE_NAME,
        definition: protos.recommendation().RecommendationService.service,
        implementation,
      },
    ],
  });
  logger.info({ port: server.port, replicaId: config.replicaId }, 'recommendation service started');
  return {
    name: 'recommendation',
    port: server.port,
    // The gRPC server lets in-flight calls (and their publishes) finish, then the consumers stop.
    stop: async () => {
      await server.stop(STOP_GRACE_MS);
      await replica.close();
    },
  };
}
