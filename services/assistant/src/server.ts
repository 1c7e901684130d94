import { protos, startGrpcServer, unary, type EventBus, type Logger, type RunningService } from '@switchyard/shared';
import { createAgentRegistry, type AgentRegistry } from './agents/registry';
import { UsagePublisher } from './events/usage-publisher';
import { createListAgentsHandler } from './handlers/list-agents';
import { createReplyHandler } from './handlers/reply';
import { BuiltinResponder } from './responders/builtin';
import type { Responder } from './responders/responder';
import { InMemorySessionStore, type SessionStore } from './store/session-store';
import type { AssistantConfig } from './config';

export { loadAssistantConfig, type AssistantConfig } from './config';
export type { SessionStore, Session, SessionMemory, ChatMessage } from './store/session-store';
export { InMemorySessionStore } from './store/session-store';
export type { Responder, ResponderInput, ResponderOutput } from './responders/responder';
export { assistantEndpoint } from './events/usage-publisher';

export const ASSISTANT_SERVICE_NAME = 'switchyard.assistant.v1.AssistantService';
/** How long stop() lets calls in flight finish. */
const STOP_GRACE_MS = 5000;

export interface AssistantServiceOptions {
  config: AssistantConfig;
  bus: EventBus;
  logger: Logger;
  /** Defaults to an in-memory store. */
  sessions?: SessionStore;
  /** Defaults to the builtin offline engine. */
  responder?: Responder;
  agents?: AgentRegistry;
}

export async function startAssistantService(options: AssistantServiceOptions): Promise<RunningService> {
  const { config, bus, logger } = options;
  const agents = options.agents ?? createAgentRegistry();
  const reply = createReplyHandler({
    agents,
    sessions: options.sessions ?? new InMemorySessionStore(),
    responder: options.responder ?? new BuiltinResponder(agents),
    usage: new UsagePublisher(bus, logger),
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
        implementation: { Reply: unary(logger, reply), ListAgents: unary(logger, listAgents) },
      },
    ],
  });
  logger.info({ port: grpc.port, agents: agents.names() }, 'assistant service listening');

  return {
    name: 'assistant',
    port: grpc.port,
    stop: () => grpc.stop(STOP_GRACE_MS),
  };
}
