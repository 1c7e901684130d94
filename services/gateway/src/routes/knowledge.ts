import { AppError } from '@switchyard/shared';
import type {
  Collection__Output,
  KnowledgeDocument__Output,
} from '@switchyard/shared/proto/assistant/v1';
import {
  CreateCollectionRequest,
  DeleteDocumentsRequest,
  FIELD_MAP_DESCRIPTION,
  ImportDocumentsQuery,
  ImportDocumentsRequest,
  ImportDocumentsResponse,
  KnowledgeCollection,
  KnowledgeCollectionList,
  KnowledgeDocument,
  KnowledgeDocumentList,
  ListDocumentsQuery,
  KnowledgeSearchResponse,
  MAX_DOCUMENT_BATCH_VALUES,
  MAX_IMPORT_VALUES,
  SearchKnowledgeRequest,
  UpsertDocumentsRequest,
  WriteDocumentsResponse,
  type CreateCollectionBody,
  type DeleteDocumentsBody,
  type FieldMap,
  type ImportBody,
  type ImportDocumentsQueryValues,
  type ListDocumentsQueryValues,
  type SearchKnowledgeBody,
  type UpsertDocumentsBody,
} from '../schemas/knowledge';
import { json, type AnyRoute, type RouteSpec } from './types';

const BASE = '/api/v2/knowledge/collections';
const TAG = 'knowledge';

export function collectionView(c: Collection__Output) {
  return {
    name: c.name,
    kind: c.kind,
    description: c.description,
    timeZone: c.time_zone || null,
    documentCount: c.document_count,
    createdAt: c.created_at,
    updatedAt: c.updated_at,
  };
}

function documentView(d: KnowledgeDocument__Output) {
  return {
    id: d.id,
    collection: d.collection,
    fields: JSON.parse(d.fields_json || '{}') as object,
    chunks: d.chunks,
    updatedAt: d.updated_at,
  };
}

const createCollection: RouteSpec<CreateCollectionBody> = {
  method: 'POST',
  path: BASE,
  operationId: 'createKnowledgeCollection',
  idempotent: true,
  summary: 'Create a knowledge collection of one kind (events, courses, articles, documents)',
  tag: TAG,
  auth: true,
  requestSchema: CreateCollectionRequest,
  responses: { 201: { description: 'The new collection', schema: KnowledgeCollection } },
  errors: ['conflict'],
  async handle({ body, call }, deps) {
    const created = await deps.clients.assistant.createCollection(
      {
        name: body.name,
        kind: body.kind,
        description: body.description ?? '',
        time_zone: body.timeZone ?? '',
      },
      call,
    );
    return json(201, collectionView(created));
  },
};

const listCollections: RouteSpec = {
  method: 'GET',
  path: BASE,
  operationId: 'listKnowledgeCollections',
  summary: "The organization's knowledge collections",
  tag: TAG,
  auth: true,
  responses: { 200: { description: 'Collections by name', schema: KnowledgeCollectionList } },
  async handle({ call }, deps) {
    return json(200, {
      collections: (await deps.clients.assistant.listCollections({}, call)).collections.map(
        collectionView,
      ),
    });
  },
};

const getCollection: RouteSpec = {
  method: 'GET',
  path: `${BASE}/:collection`,
  operationId: 'getKnowledgeCollection',
  summary: 'One knowledge collection',
  tag: TAG,
  auth: true,
  responses: { 200: { description: 'The collection', schema: KnowledgeCollection } },
  errors: ['not_found'],
  async handle({ params, call }, deps) {
    return json(
      200,
      collectionView(await deps.clients.assistant.getCollection({ name: params.collection }, call)),
    );
  },
};

const deleteCollection: RouteSpec = {
  method: 'DELETE',
  path: `${BASE}/:collection`,
  operationId: 'deleteKnowledgeCollection',
  summary: 'Remove a knowledge collection and its documents',
  tag: TAG,
  auth: true,
  responses: { 204: { description: 'Deleted' } },
  errors: ['not_found'],
  async handle({ params, call }, deps) {
    await deps.clients.assistant.deleteCollection({ name: params.collection }, call);
    return { status: 204 };
  },
};

const upsertDocuments: RouteSpec<UpsertDocumentsBody> = {
  method: 'POST',
  path: `${BASE}/:collection/documents`,
  operationId: 'upsertKnowledgeDocuments',
  idempotent: true,
  summary: 'Create or replace documents (1..1000 per call) by id; ends with a data_updated event',
  tag: TAG,
  auth: true,
  requestSchema: UpsertDocumentsRequest,
  maxBodyValues: MAX_DOCUMENT_BATCH_VALUES,
  responses: {
    200: { description: 'How many documents were written', schema: WriteDocumentsResponse },
  },
  errors: ['not_found', 'payload_too_large'],
  async handle({ params, body, call }, deps) {
    const documents = body.documents.map(({ id, ...fields }) => ({
      id,
      fields_json: JSON.stringify(fields),
    }));
    const { count } = await deps.clients.assistant.upsertDocuments(
      { collection: params.collection, documents },
      call,
    );
    return json(200, { collection: params.collection, count, requestId: call.requestId });
  },
};

/** The field map of the query (JSON text), for a file sent as it is. */
function queryFieldMap(text: string | undefined): FieldMap {
  if (text === undefined) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  const isMap =
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.values(value).every((field) => typeof field === 'string' && field !== '');
  if (!isMap)
    throw AppError.invalid(
      'fieldMap must be a JSON object of header -> field names, e.g. {"Preis":"price"}',
      '/fieldMap',
      'must be a JSON object of non-empty strings',
    );
  return value as FieldMap;
}

const importDocuments: RouteSpec<ImportBody, ImportDocumentsQueryValues> = {
  method: 'POST',
  path: `${BASE}/:collection/import`,
  operationId: 'importKnowledgeDocuments',
  idempotent: true,
  summary:
    'Bulk import a JSON Lines, JSON array or CSV file (all rows checked first; nothing is written when one is bad)',
  tag: TAG,
  auth: true,
  description:
    'Send the file as it is (`curl --data-binary @events.jsonl -H "Content-Type: application/x-ndjson"`, `text/csv`, ' +
    'or a JSON array as `application/json`), or wrapped as JSON {"format", "content", "fieldMap"}. ' +
    `Headers the collection's kind does not know are kept as metadata (listed in metadataFields); fieldMap maps the file's own headers to fields. ${FIELD_MAP_DESCRIPTION} ` +
    'A bad line, item or row is named in the 400 details (/content/line/7, /content/item/2, /content/row/3); ' +
    'a body over the gateway body limit gets 413.',
  requestSchema: ImportDocumentsRequest,
  querySchema: ImportDocumentsQuery,
  maxBodyValues: MAX_IMPORT_VALUES,
  textBodies: {
    'application/x-ndjson': {
      description: 'JSON Lines: one document per line ({"id": ..., fields})',
      toBody: (content) => ({ format: 'jsonl', content }),
    },
    'application/jsonl': {
      description: 'JSON Lines (same as application/x-ndjson)',
      toBody: (content) => ({ format: 'jsonl', content }),
    },
    'text/csv': {
      description:
        'CSV with a header row: id and field names, or headers of your own (kept as metadata, or mapped by ?fieldMap); tags as "a|b"',
      toBody: (content) => ({ format: 'csv', content }),
    },
  },
  responses: {
    200: { description: 'How many documents were imported', schema: ImportDocumentsResponse },
  },
  errors: ['not_found', 'payload_too_large'],
  async handle({ params, body, query, rawBody, call }, deps) {
    // A JSON array is passed on as it was sent, not serialized again.
    const file = Array.isArray(body)
      ? { format: 'json', content: rawBody || JSON.stringify(body), fieldMap: undefined }
      : body;
    const { count, metadata_fields } = await deps.clients.assistant.importDocuments(
      {
        collection: params.collection,
        format: file.format,
        content: file.content,
        field_map: { ...queryFieldMap(query.fieldMap), ...file.fieldMap },
      },
      call,
    );
    return json(200, {
      collection: params.collection,
      count,
      metadataFields: metadata_fields,
      requestId: call.requestId,
    });
  },
};

const deleteDocuments: RouteSpec<DeleteDocumentsBody> = {
  method: 'POST',
  path: `${BASE}/:collection/documents/delete`,
  operationId: 'deleteKnowledgeDocuments',
  idempotent: true,
  summary: 'Remove documents by id (1..1000 per call); count is how many existed',
  tag: TAG,
  auth: true,
  requestSchema: DeleteDocumentsRequest,
  responses: {
    200: { description: 'How many documents were removed', schema: WriteDocumentsResponse },
  },
  errors: ['not_found', 'payload_too_large'],
  async handle({ params, body, call }, deps) {
    const { count } = await deps.clients.assistant.deleteDocuments(
      { collection: params.collection, ids: body.ids },
      call,
    );
    return json(200, { collection: params.collection, count, requestId: call.requestId });
  },
};

const listDocuments: RouteSpec<unknown, ListDocumentsQueryValues> = {
  method: 'GET',
  path: `${BASE}/:collection/documents`,
  operationId: 'listKnowledgeDocuments',
  summary: 'Documents of a collection by id, a page at a time',
  tag: TAG,
  auth: true,
  querySchema: ListDocumentsQuery,
  responses: { 200: { description: 'One page of documents', schema: KnowledgeDocumentList } },
  errors: ['not_found'],
  async handle({ params, query, call }, deps) {
    const page = await deps.clients.assistant.listDocuments(
      { collection: params.collection, limit: query.limit, after: query.after ?? '' },
      call,
    );
    return json(200, {
      documents: page.documents.map(documentView),
      nextAfter: page.next_after || null,
    });
  },
};

const getDocument: RouteSpec = {
  method: 'GET',
  path: `${BASE}/:collection/documents/:id`,
  operationId: 'getKnowledgeDocument',
  summary: 'One document',
  tag: TAG,
  auth: true,
  responses: { 200: { description: 'The document', schema: KnowledgeDocument } },
  errors: ['not_found'],
  async handle({ params, call }, deps) {
    return json(
      200,
      documentView(
        await deps.clients.assistant.getDocument(
          { collection: params.collection, id: params.id },
          call,
        ),
      ),
    );
  },
};

const deleteDocument: RouteSpec = {
  method: 'DELETE',
  path: `${BASE}/:collection/documents/:id`,
  operationId: 'deleteKnowledgeDocument',
  summary: 'Remove one document',
  tag: TAG,
  auth: true,
  responses: { 204: { description: 'Deleted' } },
  errors: ['not_found'],
  async handle({ params, call }, deps) {
    const { count: removed } = await deps.clients.assistant.deleteDocuments(
      { collection: params.collection, ids: [params.id] },
      call,
    );
    if (removed === 0)
      throw AppError.notFound(
        `document '${params.id}' not found in collection '${params.collection}'`,
      );
    return { status: 204 };
  },
};

const searchKnowledge: RouteSpec<SearchKnowledgeBody> = {
  method: 'POST',
  path: `${BASE}/:collection/search`,
  operationId: 'searchKnowledge',
  summary:
    "Passages of a collection for a query, best first, with their scores (what the agents' retrieval finds)",
  tag: TAG,
  auth: true,
  description:
    "The same retrieval the agents use: the filters the query names (dates in the collection's or the organization's time zone, cities, prices, audiences, levels, tags) narrow the documents, " +
    'the remaining words rank them by BM25 fused with vector similarity when an embeddings model is configured. Past events are never returned. ' +
    "With an embeddings model, the query's tokens count as the organization's usage.",
  requestSchema: SearchKnowledgeRequest,
  responses: { 200: { description: 'Ranked passages', schema: KnowledgeSearchResponse } },
  errors: ['not_found'],
  async handle({ params, body, call }, deps) {
    const { timeZone } = await deps.organizations.policyOf(call.organization);
    const found = await deps.clients.assistant.searchKnowledge(
      {
        collection: params.collection,
        query: body.query,
        limit: body.limit ?? 10,
        time_zone: timeZone,
      },
      call,
    );
    const filters = JSON.parse(found.filters_json || '{}') as Record<string, unknown>;
    return json(200, {
      collection: params.collection,
      query: body.query,
      reading: {
        words: found.words,
        dates: filters.dates ?? null,
        cities: filters.cities ?? [],
        maxPrice: filters.maxPrice ?? null,
        audience: filters.audience ?? [],
        levels: filters.levels ?? [],
        tags: filters.tags ?? [],
      },
      results: found.hits.map((hit, i) => ({
        rank: i + 1,
        id: hit.id,
        title: hit.title,
        url: hit.url || null,
        passage: hit.passage,
        score: hit.score ?? null,
        lexicalScore: hit.lexical_score ?? null,
        similarity: hit.similarity ?? null,
      })),
      requestId: call.requestId,
    });
  },
};

/** documents/delete comes before documents/:id (POST vs GET/DELETE do not overlap, but keep the specific first). */
export const knowledgeRoutes: AnyRoute[] = [
  createCollection,
  listCollections,
  getCollection,
  deleteCollection,
  upsertDocuments,
  importDocuments,
  deleteDocuments,
  listDocuments,
  getDocument,
  deleteDocument,
  searchKnowledge,
];
