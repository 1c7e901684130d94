import {
  OutboxPublisher,
  protos,
  startGrpcServer,
  UsagePublisher,
  type EventBus,
  type Logger,
  type RunningService,
  SERVICE_NAMES,
  loadTokenizer,
} from '@switchyard/shared';
import type { ContentConfig } from './config';
import { ResultPublisher } from './events/result-publisher';
import { SOURCE } from './events/source';
import { contentHandlers, type HandlerDeps } from './handlers';
import { GenerateJobRunner } from './jobs/generate-job';
import { JobQueue } from './jobs/job-queue';
import { RequestLeaseKeeper } from './jobs/lease-keeper';
import { buildModels } from './models/config/build-models';
import { loadRegistry } from './models/config/load-registry';
import { ModelRegistry } from './models/registry';
import type { LlamaCppEntry } from './models/config/registry-schema';
import type { ModelInfo, TextModel } from './models/text-model';
import { inMemoryStores, type ContentStores, type RequestStore } from './store';

export { loadContentConfig, type ContentConfig } from './config';
export type {
  TextModel,
  ModelInfo,
  Capability,
  TextFormat,
  SummaryLength,
} from './models/text-model';
export {
  createStores,
  inMemoryStores,
  InMemoryRequestStore,
  MongoRequestStore,
  type AsyncRequestRecord,
  type ContentStores,
  type RequestStore,
} from './store';
export { contentHandlers, type HandlerDeps } from './handlers';
export { RegistryConfigError } from './models/config/load-registry';
export { fetchedLocalModel, modelsDirectory } from './models/llama-cpp/build';
export { loadGguf } from './models/llama-cpp/runtime';
export {
  DEFAULT_CHAT_MODEL,
  DEFAULT_EMBEDDING_MODEL,
  FETCHABLE_MODELS,
  type FetchableModel,
} from './models/fetch/catalog';
export {
  fetchModels,
  missingFiles,
  ModelFetchError,
  registryEndpoints,
} from './models/fetch/fetch-models';
export { fetchOnFirstStart, modelsToFetch } from './models/fetch/first-start';
export { terminalProgress } from './models/fetch/progress';
export type { RegistryFile, ModelEntry } from './models/config/registry-schema';

export interface ContentServiceOptions {
  config: ContentConfig;
  bus: EventBus;
  logger: Logger;
  /** Defaults to in-memory stores (createStores opens MongoDB ones); they stay the caller's to close. */
  stores?: ContentStores;
  /** Replaces the configured registry (MODEL_REGISTRY_JSON / MODEL_REGISTRY_PATH), e.g. in tests. */
  models?: TextModel[];
  /** Where the registry's apiKeyEnv names are looked up; defaults to process.env. */
  env?: NodeJS.ProcessEnv;
  /** Grace period for calls in flight when stopping. */
  stopGraceMs?: number;
}

/** Resumes unfinished requests (claimed by lease, so two replicas never both run one) and keeps leases alive. */
function leaseKeeper(
  store: RequestStore,
  deps: HandlerDeps,
  config: ContentConfig,
  logger: Logger,
): RequestLeaseKeeper {
  return new RequestLeaseKeeper({
    store,
    enqueue: (record) => deps.jobs.enqueue(() => deps.runner.run(record)),
    // Claim no more than twice what can run at once: the rest is left to other replicas.
    capacity: () => config.asyncConcurrency * 2 - deps.jobs.pending,
    leaseMs: config.requestLeaseMs,
    logger,
  });
}

/**
 * The registry: the given models, or the configured file / inline JSON, validated (startup fails
 * listing every problem), with the GGUF of LOCAL_MODEL_PATH first. The default: DEFAULT_MODEL,
 * else the LOCAL_MODEL_PATH model, else the file's defaultModel, else its first model.
 */
async function modelRegistry(options: ContentServiceOptions): Promise<ModelRegistry> {
  const { config, logger } = options;
  if (options.models)
    return new ModelRegistry(options.models, config.defaultModel || options.models[0]!.info.id);
  const env = options.env ?? process.env;
  const file = loadRegistry(
    { path: config.modelRegistryPath, inlineJson: config.modelRegistryJson },
    env,
  );
  const local: LlamaCppEntry[] = config.localModelPath
    ? [{ id: config.localModelId, provider: 'llama-cpp', modelPath: config.localModelPath }]
    : [];
  const models = await buildModels([...local, ...file.models], env, logger);
  for (const model of models) {
    if (
      !['builtin', 'apertium', 'llama-cpp', 'onnx'].includes(model.info.provider) &&
      model.info.inputPricePerMillion + model.info.outputPricePerMillion === 0
    ) {
      logger.warn(
        { model: model.info.id },
        'model is marked local and unpriced: its usage is recorded at cost 0',
      );
    }
  }
  logger.info(
    { registry: file.origin, models: models.map((m) => m.info.id) },
    'model registry loaded',
  );
  const defaultModel =
    config.defaultModel || local[0]?.id || file.defaultModel || models[0]!.info.id;
  return new ModelRegistry(models, defaultModel);
}

export interface RunningContentService extends RunningService {
  /** The model that answers requests naming none. */
  defaultModel: ModelInfo;
}

export async function startContentService(
  options: ContentServiceOptions,
): Promise<RunningContentService> {
  const { config, bus, logger } = options;
  // Every call counts tokens: the encoding is loaded now, not on the first call.
  loadTokenizer();
  const models = await modelRegistry(options);
  const stores =
    options.stores ?? inMemoryStores({ owner: config.instanceId, leaseMs: config.requestLeaseMs });
  const store = stores.requestStore;
  // Usage and results go through the outbox, so a call that spent tokens never fails on a bus outage.
  const outbox = new OutboxPublisher({
    bus,
    store: stores.outbox,
    logger,
    relayIntervalMs: config.outboxRelayIntervalMs,
    publishTimeoutMs: config.outboxPublishTimeoutMs,
  });
  await outbox.start();
  const usage = new UsagePublisher(outbox, SOURCE, logger);
  const jobs = new JobQueue(config.asyncConcurrency, logger);
  const runner = new GenerateJobRunner({
    models,
    store,
    usage,
    results: new ResultPublisher(outbox),
    logger,
    running: () => jobs.isAccepting(),
  });
  const answers = {
    store: stores.answers,
    ttlSeconds: config.idempotencyTtlSeconds,
    logger,
  };
  const deps: HandlerDeps = {
    models,
    usage,
    maxInputTokens: config.maxInputTokens,
    requests: store,
    jobs,
    runner,
    answers,
  };
  const leases = leaseKeeper(store, deps, config, logger);
  const server = await startGrpcServer({
    host: config.grpcHost,
    port: config.grpcPort,
    unixSocket: config.grpcUnixSocket,
    services: [
      {
        name: SERVICE_NAMES.ContentService,
        definition: protos.content().ContentService.service,
        handlers: contentHandlers(deps),
      },
    ],
    logger,
  });
  logger.info(
    { port: server.port, models: models.list().map((m) => m.info.id) },
    'content service started',
  );
  // After binding: serving never waits for the backlog. Requests created from now on are held by
  // this process (from before their first write), so the resume never claims them a second time.
  leases.start();

  return {
    name: 'content',
    port: server.port,
    defaultModel: models.defaultModel.info,
    stop: async () => {
      // Stop taking calls first (in-flight ones finish), then let accepted background jobs finish.
      await server.stop(options.stopGraceMs);
      await leases.stop();
      await jobs.stop();
      await outbox.stop();
      await models.close();
    },
  };
}
