import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import { CATALOGS, INTERACTION_TYPES } from '@switchyard/shared/contracts';
import { DATE_TIME, IDENTIFIER, NON_BLANK, type JsonSchema } from './common';

export const MAX_BATCH = 1000;
/** JSON values a catalog batch may hold: about 100 per item (its fields, categories and attributes). */
export const MAX_CATALOG_BATCH_VALUES = 100 * MAX_BATCH;
/** JSON values an interactions batch may hold: an interaction is an object of at most 5 fields. */
export const MAX_INTERACTION_BATCH_VALUES = 8 * MAX_BATCH;

export const RecommendationsRequest = {
  title: 'RecommendationsRequest',
  type: 'object',
  additionalProperties: false,
  required: ['userId'],
  properties: {
    userId: IDENTIFIER,
    currentItemId: IDENTIFIER,
    numRecommendations: { type: 'integer', minimum: 1, maximum: 100, default: 10 },
    catalog: { type: 'string', enum: CATALOGS },
    categories: {
      type: 'array',
      maxItems: 50,
      items: { type: 'string', minLength: 1, maxLength: 100 },
      description: 'Only items in at least one of these categories',
    },
    minPrice: {
      type: 'number',
      minimum: 0,
      description: 'Only items whose attributes.price is at least this',
    },
    maxPrice: {
      type: 'number',
      minimum: 0,
      description: 'Only items whose attributes.price is at most this',
    },
    maxPerCategory: {
      type: 'integer',
      minimum: 1,
      maximum: 100,
      description: 'Diversity: at most this many items per category',
    },
  },
} as const satisfies JSONSchema;

export type RecommendBody = FromSchema<typeof RecommendationsRequest>;

export const ModelInfo: JsonSchema = {
  title: 'RecommendationModel',
  type: 'object',
  additionalProperties: false,
  required: [
    'algorithm',
    'version',
    'items',
    'users',
    'interactions',
    'trainedAt',
    'trainingMs',
    'requestId',
  ],
  properties: {
    algorithm: {
      type: 'string',
      enum: ['ease', 'item_knn', 'none'],
      description: 'none: no interactions yet',
    },
    version: { type: 'integer', description: 'Published version every replica serves' },
    items: { type: 'integer' },
    users: { type: 'integer' },
    interactions: { type: 'integer' },
    trainedAt: { type: 'string' },
    trainingMs: { type: 'integer' },
    requestId: { type: 'string' },
  },
};

export const CatalogItem: JsonSchema = {
  title: 'CatalogItem',
  type: 'object',
  additionalProperties: false,
  required: ['itemId', 'catalog', 'title', 'categories', 'attributes', 'available', 'updatedAt'],
  properties: {
    itemId: { type: 'string' },
    catalog: { type: 'string' },
    title: { type: 'string' },
    categories: { type: 'array', items: { type: 'string' } },
    attributes: { type: 'object' },
    available: { type: 'boolean' },
    updatedAt: { type: 'string' },
  },
};

export const RecommendationsResponse: JsonSchema = {
  title: 'RecommendationsResponse',
  type: 'object',
  additionalProperties: false,
  required: ['userId', 'recommendations', 'requestId'],
  properties: {
    userId: { type: 'string' },
    recommendations: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['itemId', 'score', 'reason', 'item'],
        properties: {
          itemId: { type: 'string' },
          score: { type: 'number' },
          reason: {
            type: 'string',
            description:
              'related_to_current_item, similar_to_current_item (metadata), co_occurrence (the user history), popular, or catalog (nothing recorded yet)',
          },
          item: { oneOf: [CatalogItem, { type: 'null' }] },
        },
      },
    },
    requestId: { type: 'string' },
  },
};

export const UpsertCatalogItemsRequest = {
  title: 'UpsertCatalogItemsRequest',
  type: 'object',
  additionalProperties: false,
  required: ['items'],
  properties: {
    items: {
      type: 'array',
      minItems: 1,
      maxItems: MAX_BATCH,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['itemId', 'catalog', 'title'],
        properties: {
          itemId: IDENTIFIER,
          catalog: { type: 'string', enum: CATALOGS },
          title: { ...NON_BLANK, maxLength: 500 },
          categories: { type: 'array', maxItems: 50, items: { ...NON_BLANK, maxLength: 100 } },
          attributes: {
            type: 'object',
            description: 'Free-form attributes (price, venue, date, level...)',
          },
          available: { type: 'boolean', default: true },
        },
      },
    },
  },
} as const satisfies JSONSchema;

export type UpsertCatalogItemsBody = FromSchema<typeof UpsertCatalogItemsRequest>;

export const UpsertCatalogItemsResponse: JsonSchema = {
  title: 'UpsertCatalogItemsResponse',
  type: 'object',
  additionalProperties: false,
  required: ['upserted', 'duplicates', 'requestId'],
  properties: {
    upserted: { type: 'integer', description: 'Distinct items written' },
    duplicates: {
      type: 'integer',
      description: 'Items merged into a later item of the batch with the same itemId',
    },
    requestId: { type: 'string' },
  },
};

export const RecordInteractionsRequest = {
  title: 'RecordInteractionsRequest',
  type: 'object',
  additionalProperties: false,
  required: ['interactions'],
  properties: {
    interactions: {
      type: 'array',
      minItems: 1,
      maxItems: MAX_BATCH,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['userId', 'itemId', 'type'],
        properties: {
          userId: IDENTIFIER,
          itemId: IDENTIFIER,
          type: { type: 'string', enum: INTERACTION_TYPES },
          value: {
            type: 'number',
            description: 'The rating (1..5) for type rating; ignored otherwise',
          },
          timestamp: {
            ...DATE_TIME,
            description: 'When it happened; defaults to the time the gateway received it',
          },
        },
        if: { required: ['type'], properties: { type: { const: 'rating' } } },
        then: { required: ['value'], properties: { value: { minimum: 1, maximum: 5 } } },
      },
    },
  },
} as const satisfies JSONSchema;

export type RecordInteractionsBody = FromSchema<typeof RecordInteractionsRequest>;

export const RecordInteractionsResponse: JsonSchema = {
  title: 'RecordInteractionsResponse',
  type: 'object',
  additionalProperties: false,
  required: ['recorded', 'duplicates', 'unknownItems', 'requestId'],
  properties: {
    recorded: { type: 'integer', description: 'Interactions stored' },
    duplicates: {
      type: 'integer',
      description:
        'Interactions not stored: the same one (userId, itemId, type, value, timestamp) is stored already or came earlier in the batch',
    },
    unknownItems: {
      type: 'integer',
      description:
        'Stored interactions whose itemId is not in the catalog (kept: the catalog may come later)',
    },
    requestId: { type: 'string' },
  },
};
