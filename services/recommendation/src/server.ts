import {
  DataUpdatedPublisher,
  InMemoryOutboxStore,
  OutboxPublisher,
  UsagePublisher,
  protos,
  SERVICE_NAMES,
  startGrpcServer,
  type EventBus,
  type Logger,
  type RunningService,
} from '@switchyard/shared';
import type { RecommendationConfig } from './config';
import { ReplicaEvents } from './events/interaction-events';
import { recommendationHandlers, type HandlerDeps } from './handlers';
import { ModelRegistry } from './model/model-registry';
import { RebuildScheduler } from './model/rebuild-scheduler';
import { UserProfiles } from './model/user-profiles';
import { CachedItemStore, inMemoryStores, type RecommendationStores } from './store';

export { loadRecommendationConfig, type RecommendationConfig } from './config';
export { recommendationHandlers, type HandlerDeps } from './handlers';
export { ModelRegistry } from './model/model-registry';
export * from './store';

const STOP_GRACE_MS = 5000;

export interface RecommendationServiceOptions {
  config: RecommendationConfig;
  bus: EventBus;
  logger: Logger;
  /** Defaults to in-memory stores; persistent implementations drop in here. */
  stores?: RecommendationStores;
}

/**
 * Everything a replica serves from: stores, the published model, cached profiles, the rebuild
 * schedule and the replica events (subscribed, so this replica hears the others).
 */
export async function createReplica(options: RecommendationServiceOptions) {
  const { config, bus, logger } = options;
  const stores = options.stores ?? inMemoryStores();
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
  // Usage goes through the outbox, so a recommendation served never fails on a bus outage.
  const outbox = new OutboxPublisher({
    bus,
    store: stores.outbox ?? new InMemoryOutboxStore(),
    logger,
  });
  await outbox.start();
  const deps: HandlerDeps = {
    ...stores,
    items,
    models,
    profiles,
    scheduler,
    publisher: new DataUpdatedPublisher(bus, logger, 'recommendation'),
    replicaEvents,
    usage: new UsagePublisher(outbox, 'recommendation', logger),
    maxBatchSize: config.maxBatchSize,
    logger,
  };
  return {
    deps,
    handlers: recommendationHandlers(deps),
    async close(): Promise<void> {
      scheduler.stop();
      await outbox.stop();
      await subscription.close();
    },
  };
}

export async function startRecommendationService(
  options: RecommendationServiceOptions,
): Promise<RunningService> {
  const { config, logger } = options;
  const replica = await createReplica(options);
  const server = await startGrpcServer({
    host: config.grpcHost,
    port: config.grpcPort,
    unixSocket: config.grpcUnixSocket,
    services: [
      {
        name: SERVICE_NAMES.RecommendationService,
        definition: protos.recommendation().RecommendationService.service,
        handlers: replica.handlers,
      },
    ],
    logger,
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
