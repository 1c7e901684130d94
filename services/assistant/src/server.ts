import {
  InMemoryOutboxStore,
  OutboxPublisher,
  protos,
  startGrpcServer,
  serverStream,
  unary,
  type EventBus,
  type Logger,
  type OutboxStore,
  type RunningService, SERVICE_NAMES } from '@switchyard/shared';
import { createAgentRegistry, type AgentRegistry } from './agents/registry';
import { UsagePublisher } from './events/usage-publisher';
import { createListAgentsHandler } from './handlers/list-agents';
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
export { createStores, type AssistantStores } from './store/index';
export type { Responder, ResponderInput, ResponderOutput, ResponderCall } from './responders/responder';
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
  /** Defaults to routing by model: 'builtin' offline, others through the content service. */
  responder?: Responder;
  /** The content service's completions; defaults to a gRPC client of config.contentAddr. */
  completions?: CompletionService;
  agents?: AgentRegistry;
}

export async function startAssistantService(options: AssistantServiceOptions): Promise<RunningService> {
  const { config, bus, logger } = options;
  const agents = options.agents ?? createAgentRegistry();
  const contentClient = options.completions ? undefined : new ContentCompletionClient(config.contentAddr, config.contentDeadlineMs);
  const completions = options.completions ?? (contentClient as ContentCompletionClient);
  const responder =
    options.responder ?? new ModelRouter(new BuiltinResponder(agents), new ContentModelResponder(completions), config.defaultModel);
  // Usage goes through the outbox, so an answered call never fails on a bus outage.
  const outbox = new OutboxPublisher({
    bus,
    store: options.outboxStore ?? new InMemoryOutboxStore(),
    logger,
    relayIntervalMs: config.outboxRelayIntervalMs,
    publishTimeoutMs: config.outboxPublishTimeoutMs,
  });
  await outbox.start();
  const { reply, replyStream } = createReplyHandlers({
    agents,
    sessions: options.sessions ?? new InMemorySessionStore(),
    responder,
    usage: new UsagePublisher(outbox, logger),
    historyLimit: config.sessionHistoryLimit,
  });
  const listAgents = createListAgentsHandler(agents);

  const grpc = await startGrpcServer({
    host: config.grpcHost,
    port: config.grpcPort,
    services: [
      {
        name: ASSISTANT_SERVICE_NAME,
        definition: protos.assistant().AssistantService.service,
        implementation: { Reply: unary(logger, reply), ReplyStream: serverStream(logger, replyStream), ListAgents: unary(logger, listAgents) },
      },
    ],
  });
  logger.info({ port: grpc.port, agents: agents.names(), defaultModel: responder.defaultModel, contentAddr: config.contentAddr }, 'assistant service listening');

  return {
    name: 'assistant',
    port: grpc.port,
    stop: async () => {
      await grpc.stop(STOP_GRACE_MS); // calls in flight finish before their content client goes away
      contentClient?.close();
      await outbox.stop();
    },
  };
}
