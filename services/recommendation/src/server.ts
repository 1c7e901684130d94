import { protos, startGrpcServer, unary, type EventBus, type Logger, type RunningService, SERVICE_NAMES } from '@switchyard/shared';
import type { RecommendationServiceHandlers } from '@switchyard/shared/generated/switchyard/recommendation/v1/RecommendationService';
import type { RecommendationConfig } from './config';
import { DataUpdatedPublisher } from './events/data-updated-publisher';
import { createRecommendationHandlers, type HandlerDeps } from './handlers';
import { ModelRegistry } from './model/model-registry';
import { InMemoryInteractionStore, type InteractionStore } from './store/interaction-store';
import { InMemoryItemStore, type ItemStore } from './store/item-store';

export { loadRecommendationConfig, type RecommendationConfig } from './config';
export { createRecommendationHandlers, type HandlerDeps, type RecommendationHandlers } from './handlers';
export { DataUpdatedPublisher } from './events/data-updated-publisher';
export { ModelRegistry } from './model/model-registry';
export { InMemoryItemStore, type ItemStore } from './store/item-store';
export { InMemoryInteractionStore, type InteractionStore } from './store/interaction-store';
export { MongoItemStore } from './store/mongo-item-store';
export { MongoInteractionStore } from './store/mongo-interaction-store';
export { createStores, type RecommendationStores } from './store/index';

export const SERVICE_NAME = SERVICE_NAMES.RecommendationService;
const STOP_GRACE_MS = 5000;

export interface RecommendationServiceOptions {
  config: RecommendationConfig;
  bus: EventBus;
  logger: Logger;
  /** Defaults to in-memory stores; a persistent implementation drops in here. */
  stores?: { items: ItemStore; interactions: InteractionStore };
}

export async function startRecommendationService(options: RecommendationServiceOptions): Promise<RunningService> {
  const { config, bus, logger } = options;
  const items = options.stores?.items ?? new InMemoryItemStore();
  const interactions = options.stores?.interactions ?? new InMemoryInteractionStore();
  const models = new ModelRegistry();
  // A persistent store may already hold interactions: the model is derived state, rebuild it.
  const replayed = await models.rebuildFrom(interactions);
  const deps: HandlerDeps = {
    items,
    interactions,
    models,
    publisher: new DataUpdatedPublisher(bus, logger),
    maxBatchSize: config.maxBatchSize,
    logger,
  };
  const handlers = createRecommendationHandlers(deps);
  const implementation: RecommendationServiceHandlers = {
    Recommend: unary(logger, handlers.Recommend),
    UpsertItems: unary(logger, handlers.UpsertItems),
    RecordInteractions: unary(logger, handlers.RecordInteractions),
    GetItem: unary(logger, handlers.GetItem),
    DeleteItem: unary(logger, handlers.DeleteItem),
  };
  const server = await startGrpcServer({
    host: config.grpcHost,
    port: config.grpcPort,
    services: [{ name: SERVICE_NAME, definition: protos.recommendation().RecommendationService.service, implementation }],
  });
  logger.info({ port: server.port, replayedInteractions: replayed }, 'recommendation service started');
  return {
    name: 'recommendation',
    port: server.port,
    // No consumers to stop; the gRPC server lets in-flight calls (and their publishes) finish.
    stop: () => server.stop(STOP_GRACE_MS),
  };
}
