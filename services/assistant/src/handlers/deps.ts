import type { KnowledgeRetriever } from '../retrieval/knowledge-retriever';
import type { KnowledgeStore } from '../store/knowledge/port';
import type { AgentProfileStore } from '../store/profiles/port';
import type { AgentHandlerDeps } from './agents';
import type { KnowledgeHandlerDeps } from './knowledge';
import type { ReplyDeps } from './reply';

/** Everything the service's handlers need; server.ts builds it once. */
export interface HandlerDeps extends ReplyDeps, AgentHandlerDeps, KnowledgeHandlerDeps {
  profiles: AgentProfileStore;
  knowledge: { store: KnowledgeStore; retriever: KnowledgeRetriever };
}
