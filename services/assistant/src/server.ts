import {
  DataUpdatedPublisher,
  OutboxPublisher,
  protos,
  SERVICE_NAMES,
  startGrpcServer,
  UsagePublisher,
  type EventBus,
  type Logger,
  type RunningService,
  loadTokenizer,
} from '@switchyard/shared';
import { AgentDirectory } from './agents/directory';
import { createAgentRegistry } from './agents/registry';
import { closeClients, createClients } from './clients';
import type { AssistantConfig } from './config';
import { SessionLock } from './conversation/session-lock';
import { ContentSummarizer } from './conversation/summarizer';
import { CachedKnowledgeStore } from './caches/cached-knowledge';
import { CachedProfileStore } from './caches/cached-profiles';
import { OrganizationCache } from './caches/organization-cache';
import { AssistantChangeFeed } from './events/change-feed';
import { SupportEscalationPublisher } from './events/support-escalation-publisher';
import { SOURCE } from './events/source';
import { assistantHandlers } from './handlers';
import { RegistryEmbedder } from './knowledge/embedder';
import { KnowledgeService } from './knowledge/knowledge-service';
import { BuiltinResponder } from './responders/builtin';
import { contentCompletions } from './responders/completions';
import { ContentModelResponder } from './responders/content-model';
import { ModelRouter } from './responders/model-router';
import type { Responder } from './responders/responder';
import { KnowledgeRetriever } from './retrieval/knowledge-retriever';
import { inMemoryStores, type AssistantStores } from './store';
import type { KnowledgeCollection } from './store/knowledge/port';
import type { AgentProfile } from './store/profiles/port';

export { loadAssistantConfig, type AssistantConfig } from './config';
export { assistantMetrics } from './responders/grounding-metrics';
export { assistantHandlers, type HandlerDeps } from './handlers';
export * from './store';

/** How long stop() lets calls in flight finish. */
const STOP_GRACE_MS = 5000;

export interface AssistantServiceOptions {
  config: AssistantConfig;
  bus: EventBus;
  logger: Logger;
  /** Defaults to in-memory stores (createStores opens MongoDB and Redis ones); they stay the caller's to close. */
  stores?: AssistantStores;
  /** The current time (tests fix it to resolve "this weekend"). */
  now?: () => Date;
  /** Defaults to routing by model: 'builtin' offline, others through the content service. */
  responder?: Responder;
}

export async function startAssistantService(
  options: AssistantServiceOptions,
): Promise<RunningService> {
  const { config, bus, logger } = options;
  // Every call counts tokens: the encoding is loaded now, not on the first call.
  loadTokenizer();
  const stores = options.stores ?? inMemoryStores();
  const now = options.now ?? (() => new Date());
  const clients = createClients({
    contentAddr: config.contentAddr,
    recommendationAddr: config.recommendationAddr,
    deadlineMs: config.contentDeadlineMs,
  });
  const completions = contentCompletions(clients.content);
  const agents = createAgentRegistry();
  const responder =
    options.responder ??
    new ModelRouter(
      new BuiltinResponder(agents),
      new ContentModelResponder(completions, config.historyTokenBudget),
      config.defaultModel,
    );
  // Usage and escalations go through the outbox, so an answered call never fails on a bus outage.
  const outbox = new OutboxPublisher({
    bus,
    store: stores.outbox,
    logger,
    relayIntervalMs: config.outboxRelayIntervalMs,
    publishTimeoutMs: config.outboxPublishTimeoutMs,
  });
  await outbox.start();
  // Profiles and knowledge catalogs are read on every turn: served from memory until they change.
  const changes = new AssistantChangeFeed(bus, logger);
  const profileCache = new OrganizationCache<Map<string, AgentProfile>>(config.readCacheTtlMs);
  const catalogCache = new OrganizationCache<KnowledgeCollection[]>(config.readCacheTtlMs);
  changes.onChange((organization, change) =>
    (change === 'profiles' ? profileCache : catalogCache).drop(organization),
  );
  await changes.start();
  const profiles = new CachedProfileStore(stores.profiles, profileCache, (organization) =>
    changes.changed(organization, 'profiles'),
  );
  const knowledgeStore = new CachedKnowledgeStore(stores.knowledge, catalogCache, (organization) =>
    changes.changed(organization, 'knowledge'),
  );
  const embedder = new RegistryEmbedder(clients.content);
  const knowledge = {
    store: knowledgeStore,
    retriever: new KnowledgeRetriever(knowledgeStore, now, embedder),
  };
  const handlers = assistantHandlers({
    directory: new AgentDirectory(agents, profiles),
    // saveTurn's version check still guards a lock lost mid-turn.
    lock: new SessionLock(stores.locks),
    sessions: stores.sessions,
    profiles,
    responder,
    usage: new UsagePublisher(outbox, SOURCE, logger),
    historyLimit: config.sessionHistoryLimit,
    historyTokenBudget: config.historyTokenBudget,
    messageMaxTokens: config.messageMaxTokens,
    knowledge,
    knowledgeService: new KnowledgeService(
      knowledgeStore,
      new DataUpdatedPublisher(outbox, logger, 'assistant'),
      now,
      embedder,
    ),
    escalations: new SupportEscalationPublisher(outbox, logger),
    models: clients.content,
    defaultModel: responder.defaultModel,
    recommender: clients.recommendation,
    answers: { store: stores.answers, ttlSeconds: config.idempotencyTtlSeconds, logger },
    summarizer: new ContentSummarizer({ completions, content: clients.content }),
    now,
  });
  const grpc = await startGrpcServer({
    host: config.grpcHost,
    port: config.grpcPort,
    unixSocket: config.grpcUnixSocket,
    services: [
      {
        name: SERVICE_NAMES.AssistantService,
        definition: protos.assistant().AssistantService.service,
        handlers,
      },
    ],
    logger,
  }).catch(async (error: unknown) => {
    closeClients(clients);
    await changes.stop();
    await outbox.stop();
    throw error;
  });
  logger.info(
    { port: grpc.port, agents: agents.names(), defaultModel: responder.defaultModel },
    'assistant service listening',
  );
  return {
    name: 'assistant',
    port: grpc.port,
    stop: async () => {
      await grpc.stop(STOP_GRACE_MS); // calls in flight finish before their clients go away
      closeClients(clients);
      await changes.stop();
      await outbox.stop();
    },
  };
}
