import { AppError, type CallContext } from '@switchyard/shared';
import type { Collection } from '@switchyard/shared/generated/switchyard/assistant/v1/Collection';
import type { CollectionRef__Output } from '@switchyard/shared/generated/switchyard/assistant/v1/CollectionRef';
import type { CreateCollectionRequest__Output } from '@switchyard/shared/generated/switchyard/assistant/v1/CreateCollectionRequest';
import type { DeleteDocumentsRequest__Output } from '@switchyard/shared/generated/switchyard/assistant/v1/DeleteDocumentsRequest';
import type { DocumentRef__Output } from '@switchyard/shared/generated/switchyard/assistant/v1/DocumentRef';
import type { ImportDocumentsRequest__Output } from '@switchyard/shared/generated/switchyard/assistant/v1/ImportDocumentsRequest';
import type { KnowledgeDocument as DocumentMessage } from '@switchyard/shared/generated/switchyard/assistant/v1/KnowledgeDocument';
import type { ListDocumentsRequest__Output } from '@switchyard/shared/generated/switchyard/assistant/v1/ListDocumentsRequest';
import type { UpsertDocumentsRequest__Output } from '@switchyard/shared/generated/switchyard/assistant/v1/UpsertDocumentsRequest';
import type { KnowledgeDocument } from '../knowledge/documents';
import type { KnowledgeService } from '../knowledge/knowledge-service';
import type { KnowledgeCollection } from '../knowledge/knowledge-store';

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

/** The knowledge RPCs: transport-free, every one scoped to the caller's organization. */
export function createKnowledgeHandlers(knowledge: KnowledgeService) {
  return {
    createCollection: async (req: CreateCollectionRequest__Output, ctx: CallContext) =>
      collectionMessage(
        await knowledge.createCollection(organizationOf(ctx), {
          name: req.name,
          kind: req.kind,
          description: req.description,
          timeZone: req.time_zone,
        }),
      ),
    getCollection: async (req: CollectionRef__Output, ctx: CallContext) =>
      collectionMessage(await knowledge.collection(organizationOf(ctx), req.name)),
    listCollections: async (_req: unknown, ctx: CallContext) => ({
      collections: (await knowledge.store.listCollections(organizationOf(ctx))).map(
        collectionMessage,
      ),
    }),
    deleteCollection: async (req: CollectionRef__Output, ctx: CallContext) => {
      const deleted = await knowledge.store.deleteCollection(organizationOf(ctx), req.name);
      if (!deleted) throw AppError.notFound(`knowledge collection '${req.name}' not found`);
      return { deleted };
    },
    upsertDocuments: async (req: UpsertDocumentsRequest__Output, ctx: CallContext) => {
      const inputs = req.documents.map((d, i) => ({
        id: d.id,
        fields: parseFields(d.fields_json, i),
      }));
      return {
        count: await knowledge.upsert(organizationOf(ctx), req.collection, inputs),
        collection: req.collection,
      };
    },
    importDocuments: async (req: ImportDocumentsRequest__Output, ctx: CallContext) => ({
      count: await knowledge.import(organizationOf(ctx), req.collection, req.format, req.content),
      collection: req.collection,
    }),
    deleteDocuments: async (req: DeleteDocumentsRequest__Output, ctx: CallContext) => ({
      count: await knowledge.delete(organizationOf(ctx), req.collection, req.ids),
      collection: req.collection,
    }),
    getDocument: async (req: DocumentRef__Output, ctx: CallContext) =>
      documentMessage(await knowledge.document(organizationOf(ctx), req.collection, req.id)),
    listDocuments: async (req: ListDocumentsRequest__Output, ctx: CallContext) => {
      const organization = organizationOf(ctx);
      await knowledge.collection(organization, req.collection);
      const page = await knowledge.list(organization, req.collection, req.limit, req.after);
      return { documents: page.documents.map(documentMessage), next_after: page.nextAfter ?? '' };
    },
  };
}
