import { AppError, type CallContext } from '@switchyard/shared';
import type {
  Collection,
  CollectionRef__Output,
  CreateCollectionRequest__Output,
  DeleteDocumentsRequest__Output,
  DocumentRef__Output,
  ImportDocumentsRequest__Output,
  KnowledgeDocument as DocumentMessage,
  ListDocumentsRequest__Output,
  SearchKnowledgeRequest__Output,
  SearchKnowledgeResponse,
  UpsertDocumentsRequest__Output,
} from '@switchyard/shared/proto/assistant/v1';
import { titleOf, urlOf, type KnowledgeDocument } from '../knowledge/documents';
import type { KnowledgeRetriever } from '../retrieval/knowledge-retriever';
import type { KnowledgeService } from '../knowledge/knowledge-service';
import type { KnowledgeCollection } from '../store/knowledge/port';

function organizationOf(context: CallContext): string {
  if (!context.organization) throw new AppError('unauthorized', 'the call carries no organization');
  return context.organization;
}

export function collectionMessage(c: KnowledgeCollection): Collection {
  return {
    name: c.name,
    kind: c.kind,
    description: c.description,
    time_zone: c.timeZone,
    document_count: c.documentCount,
    created_at: c.createdAt,
    updated_at: c.updatedAt,
  };
}

function documentMessage(d: KnowledgeDocument): DocumentMessage {
  return {
    id: d.id,
    collection: d.collection,
    fields_json: JSON.stringify(d.fields),
    chunks: d.chunks.length,
    updated_at: d.updatedAt,
  };
}

function parseFields(json: string, index: number): Record<string, unknown> {
  try {
    const value = JSON.parse(json || '{}') as unknown;
    if (typeof value === 'object' && value !== null && !Array.isArray(value))
      return value as Record<string, unknown>;
  } catch {
    // reported below
  }
  throw AppError.invalid(
    `document ${index} is not a JSON object`,
    `/documents/${index}`,
    'must be an object',
  );
}

/** What the knowledge handlers need. */
export interface KnowledgeHandlerDeps {
  knowledgeService: KnowledgeService;
  knowledge: { retriever: KnowledgeRetriever };
}

/** Passages per search when the caller names no limit. */
const DEFAULT_SEARCH_LIMIT = 10;

export async function createCollection(
  { knowledgeService: knowledge }: KnowledgeHandlerDeps,
  request: CreateCollectionRequest__Output,
  context: CallContext,
): Promise<Collection> {
  return collectionMessage(
    await knowledge.createCollection(organizationOf(context), {
      name: request.name,
      kind: request.kind,
      description: request.description,
      timeZone: request.time_zone,
    }),
  );
}

export async function getCollection(
  { knowledgeService: knowledge }: KnowledgeHandlerDeps,
  request: CollectionRef__Output,
  context: CallContext,
): Promise<Collection> {
  return collectionMessage(await knowledge.collection(organizationOf(context), request.name));
}

export async function listCollections(
  { knowledgeService: knowledge }: KnowledgeHandlerDeps,
  _request: unknown,
  context: CallContext,
): Promise<{ collections: Collection[] }> {
  const collections = await knowledge.store.listCollections(organizationOf(context));
  return { collections: collections.map(collectionMessage) };
}

export async function deleteCollection(
  { knowledgeService: knowledge }: KnowledgeHandlerDeps,
  request: CollectionRef__Output,
  context: CallContext,
): Promise<{ deleted: boolean }> {
  const deleted = await knowledge.store.deleteCollection(organizationOf(context), request.name);
  if (!deleted) throw AppError.notFound(`knowledge collection '${request.name}' not found`);
  return { deleted };
}

export async function upsertDocuments(
  { knowledgeService: knowledge }: KnowledgeHandlerDeps,
  request: UpsertDocumentsRequest__Output,
  context: CallContext,
): Promise<{ count: number; collection: string }> {
  const inputs = request.documents.map((d, i) => ({
    id: d.id,
    fields: parseFields(d.fields_json, i),
  }));
  return {
    count: await knowledge.upsert(organizationOf(context), request.collection, inputs),
    collection: request.collection,
  };
}

export async function importDocuments(
  { knowledgeService: knowledge }: KnowledgeHandlerDeps,
  request: ImportDocumentsRequest__Output,
  context: CallContext,
): Promise<{ count: number; collection: string; metadata_fields: string[] }> {
  const { count, metadataFields } = await knowledge.import(
    organizationOf(context),
    request.collection,
    request.format,
    request.content,
    request.field_map ?? {},
  );
  return { count, collection: request.collection, metadata_fields: metadataFields };
}

export async function deleteDocuments(
  { knowledgeService: knowledge }: KnowledgeHandlerDeps,
  request: DeleteDocumentsRequest__Output,
  context: CallContext,
): Promise<{ count: number; collection: string }> {
  return {
    count: await knowledge.delete(organizationOf(context), request.collection, request.ids),
    collection: request.collection,
  };
}

export async function getDocument(
  { knowledgeService: knowledge }: KnowledgeHandlerDeps,
  request: DocumentRef__Output,
  context: CallContext,
): Promise<DocumentMessage> {
  return documentMessage(
    await knowledge.document(organizationOf(context), request.collection, request.id),
  );
}

export async function listDocuments(
  { knowledgeService: knowledge }: KnowledgeHandlerDeps,
  request: ListDocumentsRequest__Output,
  context: CallContext,
): Promise<{ documents: DocumentMessage[]; next_after: string }> {
  const organization = organizationOf(context);
  await knowledge.collection(organization, request.collection);
  const page = await knowledge.list(organization, request.collection, request.limit, request.after);
  return { documents: page.documents.map(documentMessage), next_after: page.nextAfter ?? '' };
}

/** What the agents' retrieval finds in one collection for a query, with its scores and reading. */
export async function searchKnowledge(
  { knowledgeService, knowledge }: KnowledgeHandlerDeps,
  request: SearchKnowledgeRequest__Output,
  context: CallContext,
): Promise<SearchKnowledgeResponse> {
  const organization = organizationOf(context);
  const collection = await knowledgeService.collection(organization, request.collection);
  const retrieval = await knowledge.retriever.retrieve({
    organization,
    text: request.query,
    known: [collection],
    limit: request.limit > 0 ? request.limit : DEFAULT_SEARCH_LIMIT,
    timeZone: request.time_zone || undefined,
  });
  const query = retrieval.queries.get(collection.name);
  const filters = query && {
    dates: query.dates
      ? {
          from: query.dates.from.toISOString(),
          to: query.dates.to.toISOString(),
          phrase: query.dates.phrase,
        }
      : null,
    cities: query.cities,
    maxPrice: query.maxPrice ?? null,
    audience: query.audience,
    levels: query.levels,
    tags: query.tags,
  };
  return {
    hits: retrieval.results.map(({ doc, passage, scores }) => ({
      id: doc.id,
      title: titleOf(doc),
      url: urlOf(doc) ?? '',
      passage,
      score: scores?.fused,
      lexical_score: scores?.lexical,
      similarity: scores?.similarity,
    })),
    filters_json: JSON.stringify(filters ?? {}),
    words: query?.words ?? [],
  };
}
