import { withDeps, type AssistantServiceServer } from '@switchyard/shared';
import { deleteAgent, getAgent, listAgents, putAgent } from './agents';
import type { HandlerDeps } from './deps';
import { getSession } from './get-session';
import {
  createCollection,
  deleteCollection,
  deleteDocuments,
  getCollection,
  getDocument,
  importDocuments,
  listCollections,
  listDocuments,
  searchKnowledge,
  upsertDocuments,
} from './knowledge';
import { reply, replyStream } from './reply';

/** The service's handlers: each RPC a transport-free function, bound to the service's deps. */
export function assistantHandlers(deps: HandlerDeps): AssistantServiceServer {
  return withDeps(deps, {
    reply,
    replyStream,
    listAgents,
    putAgent,
    getAgent,
    deleteAgent,
    getSession,
    createCollection,
    getCollection,
    listCollections,
    deleteCollection,
    upsertDocuments,
    importDocuments,
    deleteDocuments,
    getDocument,
    listDocuments,
    searchKnowledge,
  });
}

export type { HandlerDeps } from './deps';
