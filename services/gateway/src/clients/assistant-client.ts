import { callUnary, createClient, protos, type CallContext } from '@switchyard/shared';
import type { AssistantServiceClient } from '@switchyard/shared/generated/switchyard/assistant/v1/AssistantService';
import type { ReplyChunk__Output } from '@switchyard/shared/generated/switchyard/assistant/v1/ReplyChunk';
import type { ReplyRequest } from '@switchyard/shared/generated/switchyard/assistant/v1/ReplyRequest';
import type { ReplyResponse__Output } from '@switchyard/shared/generated/switchyard/assistant/v1/ReplyResponse';

import type { Collection__Output } from '@switchyard/shared/generated/switchyard/assistant/v1/Collection';
import type { CreateCollectionRequest } from '@switchyard/shared/generated/switchyard/assistant/v1/CreateCollectionRequest';
import type { DocumentInput } from '@switchyard/shared/generated/switchyard/assistant/v1/DocumentInput';
import type { ImportDocumentsRequest } from '@switchyard/shared/generated/switchyard/assistant/v1/ImportDocumentsRequest';
import type { KnowledgeDocument__Output } from '@switchyard/shared/generated/switchyard/assistant/v1/KnowledgeDocument';
import type { DeleteResponse__Output } from '@switchyard/shared/generated/switchyard/assistant/v1/DeleteResponse';
import type { ListCollectionsResponse__Output } from '@switchyard/shared/generated/switchyard/assistant/v1/ListCollectionsResponse';
import type { WriteDocumentsResponse__Output } from '@switchyard/shared/generated/switchyard/assistant/v1/WriteDocumentsResponse';
import type { AgentProfile, AgentProfile__Output } from '@switchyard/shared/generated/switchyard/assistant/v1/AgentProfile';
import type { ListAgentsResponse__Output } from '@switchyard/shared/generated/switchyard/assistant/v1/ListAgentsResponse';
import type { SessionView__Output } from '@switchyard/shared/generated/switchyard/assistant/v1/SessionView';
import type { ListDocumentsResponse__Output } from '@switchyard/shared/generated/switchyard/assistant/v1/ListDocumentsResponse';
import { openServerStream, type ChunkStream } from './server-stream';

export const ASSISTANT_SERVICE_NAME = 'switchyard.assistant.v1.AssistantService';

export class AssistantClient {
  private readonly client: AssistantServiceClient;

  constructor(
    readonly address: string,
    private readonly deadlineMs: number,
  ) {
    this.client = createClient(protos.assistant().AssistantService, address);
  }

  reply(request: ReplyRequest, context: CallContext): Promise<ReplyResponse__Output> {
    return callUnary('assistant', this.client.Reply, this.client, request, context, this.deadlineMs);
  }

  /** Deltas, then one final chunk with the Reply fields. */
  replyStream(request: ReplyRequest, context: CallContext): ChunkStream<ReplyChunk__Output> {
    return openServerStream('assistant', this.client.ReplyStream, this.client, request, context, this.deadlineMs);
  }

  // Knowledge bases (one organization's, by the call's context).

  createCollection(request: CreateCollectionRequest, context: CallContext): Promise<Collection__Output> {
    return callUnary('assistant', this.client.CreateCollection, this.client, request, context, this.deadlineMs);
  }

  getCollection(name: string, context: CallContext): Promise<Collection__Output> {
    return callUnary('assistant', this.client.GetCollection, this.client, { name }, context, this.deadlineMs);
  }

  async listCollections(context: CallContext): Promise<Collection__Output[]> {
    return (await callUnary<object, ListCollectionsResponse__Output>('assistant', this.client.ListCollections, this.client, {}, context, this.deadlineMs)).collections;
  }

  async deleteCollection(name: string, context: CallContext): Promise<boolean> {
    return (await callUnary<object, DeleteResponse__Output>('assistant', this.client.DeleteCollection, this.client, { name }, context, this.deadlineMs)).deleted;
  }

  async upsertDocuments(collection: string, documents: DocumentInput[], context: CallContext): Promise<number> {
    return (await callUnary<object, WriteDocumentsResponse__Output>('assistant', this.client.UpsertDocuments, this.client, { collection, documents }, context, this.deadlineMs)).count;
  }

  async importDocuments(request: ImportDocumentsRequest, context: CallContext): Promise<number> {
    return (await callUnary<object, WriteDocumentsResponse__Output>('assistant', this.client.ImportDocuments, this.client, request, context, this.deadlineMs)).count;
  }

  async deleteDocuments(collection: string, ids: string[], context: CallContext): Promise<number> {
    return (await callUnary<object, WriteDocumentsResponse__Output>('assistant', this.client.DeleteDocuments, this.client, { collection, ids }, context, this.deadlineMs)).count;
  }

  getDocument(collection: string, id: string, context: CallContext): Promise<KnowledgeDocument__Output> {
    return callUnary('assistant', this.client.GetDocument, this.client, { collection, id }, context, this.deadlineMs);
  }

  listDocuments(collection: string, limit: number, after: string, context: CallContext): Promise<ListDocumentsResponse__Output> {
    return callUnary('assistant', this.client.ListDocuments, this.client, { collection, limit, after }, context, this.deadlineMs);
  }

  // Agent profiles and sessions (the caller's organization).

  listAgents(context: CallContext): Promise<ListAgentsResponse__Output> {
    return callUnary('assistant', this.client.ListAgents, this.client, {}, context, this.deadlineMs);
  }

  putAgent(profile: AgentProfile, context: CallContext): Promise<AgentProfile__Output> {
    return callUnary('assistant', this.client.PutAgent, this.client, profile, context, this.deadlineMs);
  }

  getAgent(name: string, context: CallContext): Promise<AgentProfile__Output> {
    return callUnary('assistant', this.client.GetAgent, this.client, { name }, context, this.deadlineMs);
  }

  async deleteAgent(name: string, context: CallContext): Promise<boolean> {
    return (await callUnary<object, DeleteResponse__Output>('assistant', this.client.DeleteAgent, this.client, { name }, context, this.deadlineMs)).deleted;
  }

  getSession(sessionId: string, context: CallContext): Promise<SessionView__Output> {
    return callUnary('assistant', this.client.GetSession, this.client, { session_id: sessionId }, context, this.deadlineMs);
  }

  close(): void {
    this.client.close();
  }
}
