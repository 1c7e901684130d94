import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import { SLUG_NAME, type JsonSchema } from './common';

/** Collection names: the path segment and the `dataset` of data_updated events. */
const COLLECTION_NAME = SLUG_NAME;
const DOCUMENT_ID = { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$' } as const;
export const MAX_DOCUMENT_BATCH = 1000;
/** JSON values a document batch may hold: about 100 per document (larger sets go through /import). */
export const MAX_DOCUMENT_BATCH_VALUES = 100 * MAX_DOCUMENT_BATCH;

export const CreateCollectionRequest = {
  title: 'CreateCollectionRequest',
  type: 'object',
  additionalProperties: false,
  required: ['name', 'kind'],
  properties: {
    name: COLLECTION_NAME,
    kind: {
      type: 'string',
      enum: ['events', 'courses', 'articles', 'documents'],
      description:
        'events: title, description, venue, city, startsAt, endsAt, price, currency, url, tags. courses: title, description, level, modules [{title, lessons [{title, summary}]}], price, currency, url, tags. articles: title, body (Markdown), url, tags. documents: text, title, url, tags, metadata.',
    },
    description: { type: 'string', maxLength: 1000 },
    timeZone: {
      type: 'string',
      minLength: 1,
      maxLength: 64,
      description:
        'IANA zone for dates in users\' words ("this weekend"); default: the organization\'s time zone',
    },
  },
} as const satisfies JSONSchema;

export type CreateCollectionBody = FromSchema<typeof CreateCollectionRequest>;

export const KnowledgeCollection: JsonSchema = {
  title: 'KnowledgeCollection',
  type: 'object',
  additionalProperties: false,
  required: ['name', 'kind', 'description', 'timeZone', 'documentCount', 'createdAt', 'updatedAt'],
  properties: {
    name: { type: 'string' },
    kind: { type: 'string' },
    description: { type: 'string' },
    timeZone: {
      type: ['string', 'null'],
      description: "The collection's own IANA zone; null: the organization's time zone",
    },
    documentCount: { type: 'integer', minimum: 0 },
    createdAt: { type: 'string', format: 'date-time' },
    updatedAt: { type: 'string', format: 'date-time' },
  },
};

export const KnowledgeCollectionList: JsonSchema = {
  title: 'KnowledgeCollectionList',
  type: 'object',
  additionalProperties: false,
  required: ['collections'],
  properties: { collections: { type: 'array', items: KnowledgeCollection } },
};

export const UpsertDocumentsRequest = {
  title: 'UpsertDocumentsRequest',
  description:
    "Each document is its id plus the fields of the collection's kind (checked by the assistant service)",
  type: 'object',
  additionalProperties: false,
  required: ['documents'],
  properties: {
    documents: {
      type: 'array',
      minItems: 1,
      maxItems: MAX_DOCUMENT_BATCH,
      items: { type: 'object', required: ['id'], properties: { id: DOCUMENT_ID } },
    },
  },
} as const satisfies JSONSchema;

export type UpsertDocumentsBody = FromSchema<typeof UpsertDocumentsRequest>;

export const DeleteDocumentsRequest = {
  title: 'DeleteDocumentsRequest',
  type: 'object',
  additionalProperties: false,
  required: ['ids'],
  properties: {
    ids: { type: 'array', minItems: 1, maxItems: MAX_DOCUMENT_BATCH, items: DOCUMENT_ID },
  },
} as const satisfies JSONSchema;

export type DeleteDocumentsBody = FromSchema<typeof DeleteDocumentsRequest>;

/** Rows an import holds at most (the assistant service checks; the body limit binds first). */
export const MAX_IMPORT_ROWS = 20_000;
/** JSON values a body sent as a JSON array may hold: BODY_LIMIT_BYTES binds long before. */
export const MAX_IMPORT_VALUES = 50 * MAX_IMPORT_ROWS;

export type FieldMap = Record<string, string>;

export const FIELD_MAP_DESCRIPTION =
  "A header of the file (CSV column or JSON key) -> the field of the collection's kind it holds, " +
  'e.g. {"Titel": "title", "Beginn": "startsAt", "Preis": "price"}. Headers that are fields of the kind ' +
  '(any case, with or without spaces, - or _) need no entry; headers named neither here nor as a field ' +
  'are kept as metadata (searched, shown in answers) under their own name. An entry that names a header ' +
  'the file does not have, or no field of the kind, is 400.';

const FieldMapSchema = {
  type: 'object',
  maxProperties: 200,
  additionalProperties: { type: 'string', minLength: 1, maxLength: 100 },
  description: FIELD_MAP_DESCRIPTION,
} as const;

const ImportFileRequest = {
  type: 'object',
  additionalProperties: false,
  required: ['format', 'content'],
  properties: {
    format: {
      type: 'string',
      enum: ['jsonl', 'json', 'csv'],
      description:
        'jsonl: JSON Lines; json: a JSON array of documents; csv: a header row and a row per document',
    },
    content: { type: 'string', minLength: 1, description: 'The file as text (UTF-8)' },
    fieldMap: FieldMapSchema,
  },
} as const satisfies JSONSchema;

const ImportArrayRequest = {
  type: 'array',
  minItems: 1,
  description: 'A JSON array of documents, each {"id": ..., fields} (as format json)',
  items: { type: 'object' },
} as const satisfies JSONSchema;

export const ImportDocumentsRequest = {
  title: 'ImportDocumentsRequest',
  description:
    'A file wrapped as {"format", "content", "fieldMap"}, or a JSON array of documents as it is. jsonl: one document per line ({"id": ..., fields}). ' +
    'json: an array of such documents. csv: a header row with id and field names, "," ";" or tab between cells; tags as "a|b"; ' +
    'for courses one row per lesson with module, lesson, lesson_summary columns. UTF-8 with or without a byte order mark, LF or CRLF.',
  if: { type: 'array' },
  then: ImportArrayRequest,
  else: ImportFileRequest,
} as const satisfies JSONSchema;

/** The wrapped form, or a JSON array of documents sent as it is. */
export type ImportBody =
  FromSchema<typeof ImportFileRequest> | FromSchema<typeof ImportArrayRequest>;

export const ImportDocumentsQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    fieldMap: {
      type: 'string',
      maxLength: 20_000,
      description: `The field map as JSON (URL-encoded), for a file sent as it is: ?fieldMap={"Preis":"price"}. ${FIELD_MAP_DESCRIPTION}`,
    },
  },
} as const satisfies JSONSchema;

export type ImportDocumentsQueryValues = FromSchema<typeof ImportDocumentsQuery>;

export const WriteDocumentsResponse: JsonSchema = {
  title: 'WriteDocumentsResponse',
  type: 'object',
  additionalProperties: false,
  required: ['collection', 'count', 'requestId'],
  properties: {
    collection: { type: 'string' },
    count: {
      type: 'integer',
      minimum: 0,
      description: 'Documents written (or deleted); also the count of the data_updated event',
    },
    requestId: { type: 'string' },
  },
};

export const ImportDocumentsResponse: JsonSchema = {
  title: 'ImportDocumentsResponse',
  type: 'object',
  additionalProperties: false,
  required: ['collection', 'count', 'metadataFields', 'requestId'],
  properties: {
    collection: { type: 'string' },
    count: {
      type: 'integer',
      minimum: 0,
      description: 'Documents imported; also the count of the data_updated event',
    },
    metadataFields: {
      type: 'array',
      items: { type: 'string' },
      description:
        "The file's headers that are no field of the kind nor in fieldMap, kept as metadata under these names",
    },
    requestId: { type: 'string' },
  },
};

export const KnowledgeDocument: JsonSchema = {
  title: 'KnowledgeDocument',
  type: 'object',
  additionalProperties: false,
  required: ['id', 'collection', 'fields', 'chunks', 'updatedAt'],
  properties: {
    id: { type: 'string' },
    collection: { type: 'string' },
    fields: { type: 'object', description: "The fields of the collection's kind" },
    chunks: {
      type: 'integer',
      minimum: 0,
      description: 'How many pieces the text was split into for retrieval',
    },
    updatedAt: { type: 'string', format: 'date-time' },
  },
};

export const ListDocumentsQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    limit: { type: 'integer', minimum: 1, maximum: MAX_DOCUMENT_BATCH, default: 100 },
    after: DOCUMENT_ID,
  },
} as const satisfies JSONSchema;

export type ListDocumentsQueryValues = FromSchema<typeof ListDocumentsQuery>;

export const KnowledgeDocumentList: JsonSchema = {
  title: 'KnowledgeDocumentList',
  type: 'object',
  additionalProperties: false,
  required: ['documents', 'nextAfter'],
  properties: {
    documents: { type: 'array', items: KnowledgeDocument },
    nextAfter: {
      type: ['string', 'null'],
      description: 'Pass as `after` for the next page; null on the last page',
    },
  },
};

export const MAX_SEARCH_RESULTS = 50;

export const SearchKnowledgeRequest = {
  title: 'SearchKnowledgeRequest',
  type: 'object',
  additionalProperties: false,
  required: ['query'],
  properties: {
    query: {
      type: 'string',
      minLength: 1,
      maxLength: 2000,
      description:
        'Words as a user would ask them ("jazz in Berlin this weekend under 30"): dates, cities, prices, audiences, levels and tags are read as filters, the other words are matched',
    },
    limit: { type: 'integer', minimum: 1, maximum: MAX_SEARCH_RESULTS, default: 10 },
  },
} as const satisfies JSONSchema;

export type SearchKnowledgeBody = FromSchema<typeof SearchKnowledgeRequest>;

const SCORE = (description: string) => ({ type: ['number', 'null'], description });

export const KnowledgeSearchResult: JsonSchema = {
  title: 'KnowledgeSearchResult',
  type: 'object',
  additionalProperties: false,
  required: ['rank', 'id', 'title', 'url', 'passage', 'score', 'lexicalScore', 'similarity'],
  properties: {
    rank: { type: 'integer', minimum: 1 },
    id: { type: 'string', description: 'The document' },
    title: { type: 'string' },
    url: { type: ['string', 'null'] },
    passage: { type: 'string', description: 'The piece of the document that matched' },
    score: SCORE(
      'Reciprocal rank fusion of the BM25 and vector rankings (sum of 1/(60 + rank)), which orders the results; null when only the filters chose the document',
    ),
    lexicalScore: SCORE("BM25 of the passage; null when it holds none of the query's words"),
    similarity: SCORE(
      'Cosine similarity of the passage to the query; null without an embeddings model or below 0.2',
    ),
  },
};

export const KnowledgeSearchResponse: JsonSchema = {
  title: 'KnowledgeSearchResponse',
  type: 'object',
  additionalProperties: false,
  required: ['collection', 'query', 'reading', 'results', 'requestId'],
  properties: {
    collection: { type: 'string' },
    query: { type: 'string' },
    reading: {
      type: 'object',
      description: 'How the query was read: the filters it named and the words left to match',
      additionalProperties: false,
      required: ['words', 'dates', 'cities', 'maxPrice', 'audience', 'levels', 'tags'],
      properties: {
        words: { type: 'array', items: { type: 'string' } },
        dates: {
          type: ['object', 'null'],
          additionalProperties: false,
          required: ['from', 'to', 'phrase'],
          properties: {
            from: { type: 'string', format: 'date-time' },
            to: { type: 'string', format: 'date-time' },
            phrase: { type: 'string' },
          },
        },
        cities: { type: 'array', items: { type: 'string' } },
        maxPrice: { type: ['number', 'null'] },
        audience: { type: 'array', items: { type: 'string' } },
        levels: { type: 'array', items: { type: 'string' } },
        tags: { type: 'array', items: { type: 'string' } },
      },
    },
    results: { type: 'array', items: KnowledgeSearchResult },
    requestId: { type: 'string' },
  },
};
