import {
  DataUpdatedPublisher,
  InMemoryAnswerStore,
  InMemoryOutboxStore,
  OutboxPublisher,
  protos,
  SERVICE_NAMES,
  startGrpcServer,
  serverStream,
  unary,
  type AnswerStore,
  type EventBus,
  type Locks,
  type Logger,
  type OutboxStore,
  type RunningService,
} from '@switchyard/shared';
import { createAgentRegistry, type AgentRegistry } from './agents/registry';
import { UsagePublisher } from './events/usage-publisher';
import { createKnowledgeHandlers } from './handlers/knowledge';
import { createAgentHandlers } from './handlers/agents';
import { createGetSessionHandler } from './handlers/get-session';
import { AgentDirectory } from './agents/directory';
import { RegistryEmbedder, type Embedder } from './clients/embeddings-client';
import { ContentSummarizer } from './clients/summarizer-client';
import type { Summarizer } from './store/history-summary';
import { SupportEscalationPublisher } from './events/support-escalation-publisher';
import { RecommendationClient, type Recommender } from './clients/recommendation-client';
import { KnowledgeRetriever } from './retrieval/knowledge-retriever';
import { InMemoryAgentProfileStore, type AgentProfileStore } from './store/agent-profile-store';
import { KnowledgeService } from './knowledge/knowledge-service';
import { InMemoryKnowledgeStore, type KnowledgeStore } from './knowledge/knowledge-store';
import { createReplyHandlers } from './handlers/reply';
import { ContentCompletionClient, type CompletionService } from './clients/content-client';
import { BuiltinResponder } from './responders/builtin';
import { ContentModelResponder } from './responders/content-model';
import { ModelRouter } from './responders/model-router';
import type { Responder } from './responders/responder';
import { InMemorySessionStore, type SessionStore } from './store/session-store';
import type { AssistantConfig } from './config';

export { loadAssistantConfig, type AssistantConfig } from './config';
export type { SessionStore, Session, SessionMemory, ChatMessage } from './store/session-store';
export { InMemorySessionStore, SessionConflictError } from './store/session-store';
export { MongoSessionStore } from './store/mongo-session-store';
export { InMemoryKnowledgeStore, type KnowledgeStore } from './knowledge/knowledge-store';
export { MongoKnowledgeStore } from './knowledge/mongo-knowledge-store';
export { InMemoryAgentProfileStore, type AgentProfileStore } from './store/agent-profile-store';
export { MongoAgentProfileStore } from './store/mongo-agent-profile-store';
export { createStores, type AssistantStores } from './store/index';
export type {
  Responder,
  ResponderInput,
  ResponderOutput,
  ResponderCall,
} from './responders/responder';
export type { CompletionService, Completion } from './clients/content-client';
export { assistantEndpoint } from './events/usage-publisher';

export const ASSISTANT_SERVICE_NAME = SERVICE_NAMES.AssistantService;
/** How long stop() lets calls in flight finish. */
const STOP_GRACE_MS = 5000;

export interface AssistantServiceOptions {
  config: AssistantConfig;
  bus: EventBus;
  logger: Logger;
  /** Defaults to an in-memory store. */
  sessions?: SessionStore;
  /** Where usage events wait while the bus is down; defaults to in-memory (Mongo via createStores). */
  outboxStore?: OutboxStore;
  /** Finished replies kept for retries; defaults to in-memory (Mongo via createStores). */
  answerStore?: AnswerStore;
  /** Defaults to routing by model: 'builtin' offline, others through the content service. */
  responder?: Responder;
  /** The content service's completions; defaults to a gRPC client of config.contentAddr. */
  completions?: CompletionService;
  agents?: AgentRegistry;
  /** Organizations' knowledge collections; defaults to in-memory (Mongo via createStores). */
  knowledge?: KnowledgeStore;
  /** Organizations' agent profiles; defaults to in-memory (Mongo via createStores). */
  profiles?: AgentProfileStore;
  /** The current time (tests fix it to resolve "this weekend"). */
  now?: () => Date;
  /** Defaults to the content service's Embed (the registry's embeddings model, when it has one). */
  embedder?: Embedder;
  /** The recommend tool's service; defaults to a gRPC client of config.recommendationAddr. */
  recommender?: Recommender;
  /** Locks shared by the replicas (per-session order); defaults to this process only (createStores: Redis). */
  locks?: Locks;
  /** Summarizes turns that no longer fit; defaults to the content service (the conversation's model, or the builtin summarizer). */
  summarizer?: Summarizer;
}

export async function startAssistantService(
  options: AssistantServiceOptions,
): Promise<RunningService> {
  const { config, bus, logger } = options;
  const agents = options.agents ?? createAgentRegistry();
  const contentClient = options.completions
    ? undefined
    : new ContentCompletionClient(config.contentAddr, config.contentDeadlineMs);
  const completions = options.completions ?? (contentClient as ContentCompletionClient);
  const responder =
    options.responder ??
    new ModelRouter(
      new BuiltinResponder(agents),
      new ContentModelResponder(completions, config.historyTokenBudget),
      config.defaultModel,
    );
  const recommendationClient = options.recommender
    ? undefined
    : new RecommendationClient(config.recommendationAddr, config.contentDeadlineMs);
  const recommender = options.recommender ?? (recommendationClient as RecommendationClient);
  // Usage goes through the outbox, so an answered call never fails on a bus outage.
  const outbox = new OutboxPublisher({
    bus,
    store: options.outboxStore ?? new InMemoryOutboxStore(),
    logger,
    relayIntervalMs: config.outboxRelayIntervalMs,
    publishTimeoutMs: config.outboxPublishTimeoutMs,
  });
  await outbox.start();
  const sessions = options.sessions ?? new InMemorySessionStore();
  const knowledgeStore = options.knowledge ?? new InMemoryKnowledgeStore();
  const profiles = options.profiles ?? new InMemoryAgentProfileStore();
  const embedder =
    options.embedder ?? (contentClient ? new RegistryEmbedder(contentClient) : undefined);
  const now = options.now ?? (() => new Date());
  const { reply, replyStream } = createReplyHandlers({
    agents,
    sessions,
    responder,
    usage: new UsagePublisher(outbox, logger),
    historyLimit: config.sessionHistoryLimit,
    profiles,
    knowledge: {
      store: knowledgeStore,
      retriever: new KnowledgeRetriever(knowledgeStore, now, embedder),
    },
    escalations: new SupportEscalationPublisher(outbox, logger),
    recommender,
    answers: {
      store: options.answerStore ?? new InMemoryAnswerStore(),
      ttlSeconds: config.idempotencyTtlSeconds,
      logger,
    },
    locks: options.locks,
    historyTokenBudget: config.historyTokenBudget,
    summarizer:
      options.summarizer ?? (contentClient ? new ContentSummarizer(contentClient) : undefined),
  });
  const agentHandlers = createAgentHandlers({
    directory: new AgentDirectory(agents, profiles),
    profiles,
    knowledge: knowledgeStore,
  });
  const knowledge = createKnowledgeHandlers(
    new KnowledgeService(
      knowledgeStore,
      new DataUpdatedPublisher(outbox, logger, 'assistant'),
      now,
      embedder,
    ),
  );
  const getSession = createGetSessionHandler(sessions);

  const grpc = await startGrpcServer({
    host: config.grpcHost,
    port: config.grpcPort,
    unixSocket: config.grpcUnixSocket,
    services: [
      {
        name: ASSISTANT_SERVICE_NAME,
        definition: protos.assistant().AssistantService.service,
        implementation: {
          Reply: unary(logger, reply),
          ReplyStream: serverStream(logger, replyStream),
          ListAgents: unary(logger, agentHandlers.listAgents),
          PutAgent: unary(logger, agentHandlers.putAgent),
          GetAgent: unary(logger, agentHandlers.getAgent),
          DeleteAgent: unary(logger, agentHandlers.deleteAgent),
          GetSession: unary(logger, getSession),
          CreateCollection: unary(logger, knowledge.createCollection),
          GetCollection: unary(logger, knowledge.getCollection),
          ListCollections: unary(logger, knowledge.listCollections),
          DeleteCollection: unary(logger, knowledge.deleteCollection),
          UpsertDocuments: unary(logger, knowledge.upsertDocuments),
          ImportDocuments: unary(logger, knowledge.importDocuments),
          DeleteDocuments: unary(logger, knowledge.deleteDocuments),
          GetDocument: unary(logger, knowledge.getDocument),
          ListDocuments: unary(logger, knowledge.listDocuments),
        },
      },
    ],
  });
  logger.info(
    {
      port: grpc.port,
      agents: agents.names(),
      defaultModel: responder.defaultModel,
      contentAddr: config.contentAddr,
    },
    'assistant service listening',
  );

  return {
    name: 'assistant',
    port: grpc.port,
    stop: async () => {
      await grpc.stop(STOP_GRACE_MS); // calls in flight finish before their content client goes away
      contentClient?.close();
      recommendationClient?.close();
      await outbox.stop();
    },
  };
}
