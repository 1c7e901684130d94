import { AppError } from '@switchyard/shared';
import {
  CatalogItem,
  MAX_CATALOG_BATCH_VALUES,
  MAX_INTERACTION_BATCH_VALUES,
  RecordInteractionsRequest,
  RecordInteractionsResponse,
  UpsertCatalogItemsRequest,
  UpsertCatalogItemsResponse,
  type RecordInteractionsBody,
  type UpsertCatalogItemsBody,
} from '../schemas/recommendations';
import { itemView } from './item-view';
import { json, type AnyRoute, type RouteSpec } from './types';

const upsertItems: RouteSpec<UpsertCatalogItemsBody> = {
  method: 'POST',
  path: '/api/v2/catalog/items',
  operationId: 'upsertCatalogItems',
  idempotent: true,
  summary: 'Create or replace catalog items (1..1000 per call), keyed by itemId',
  tag: 'catalog',
  auth: true,
  requestSchema: UpsertCatalogItemsRequest,
  maxBodyValues: MAX_CATALOG_BATCH_VALUES,
  responses: {
    200: { description: 'How many items were written', schema: UpsertCatalogItemsResponse },
  },
  errors: ['payload_too_large'],
  async handle({ body, call }, deps) {
    const items = body.items.map((item) => ({
      item_id: item.itemId,
      catalog: item.catalog,
      title: item.title,
      categories: item.categories ?? [],
      attributes_json: JSON.stringify(item.attributes ?? {}),
      available: item.available,
    }));
    const { upserted, duplicates } = await deps.clients.recommendation.upsertItems({ items }, call);
    return json(200, { upserted, duplicates, requestId: call.requestId });
  },
};

const getItem: RouteSpec = {
  method: 'GET',
  path: '/api/v2/catalog/items/:itemId',
  operationId: 'getCatalogItem',
  summary: 'Read one catalog item',
  tag: 'catalog',
  auth: true,
  responses: { 200: { description: 'The item', schema: CatalogItem } },
  errors: ['not_found'],
  async handle({ params, call }, deps) {
    return json(
      200,
      itemView(
        await deps.clients.recommendation.getItem({ item_id: params.itemId }, call),
        deps.logger,
      ),
    );
  },
};

const deleteItem: RouteSpec = {
  method: 'DELETE',
  path: '/api/v2/catalog/items/:itemId',
  operationId: 'deleteCatalogItem',
  summary: 'Remove one catalog item',
  tag: 'catalog',
  auth: true,
  responses: { 204: { description: 'Deleted' } },
  errors: ['not_found'],
  async handle({ params, call }, deps) {
    const { deleted } = await deps.clients.recommendation.deleteItem(
      { item_id: params.itemId },
      call,
    );
    if (!deleted) throw AppError.notFound(`catalog item ${params.itemId} not found`);
    return { status: 204 };
  },
};

const recordInteractions: RouteSpec<RecordInteractionsBody> = {
  method: 'POST',
  path: '/api/v2/interactions',
  operationId: 'recordInteractions',
  idempotent: true,
  summary: 'Record user interactions (views, purchases, ratings...) that drive recommendations',
  tag: 'catalog',
  auth: true,
  requestSchema: RecordInteractionsRequest,
  maxBodyValues: MAX_INTERACTION_BATCH_VALUES,
  responses: {
    200: {
      description:
        'How many interactions were stored, merged as duplicates, or are on unknown items',
      schema: RecordInteractionsResponse,
    },
  },
  errors: ['payload_too_large'],
  async handle({ body, call }, deps) {
    const receivedAt = new Date().toISOString();
    const interactions = body.interactions.map((i) => ({
      user_id: i.userId,
      item_id: i.itemId,
      type: i.type,
      value: i.value ?? 0,
      timestamp: i.timestamp ?? receivedAt,
    }));
    const answer = await deps.clients.recommendation.recordInteractions({ interactions }, call);
    return json(200, {
      recorded: answer.recorded,
      duplicates: answer.duplicates,
      unknownItems: answer.unknown_items,
      requestId: call.requestId,
    });
  },
};

export const catalogRoutes: AnyRoute[] = [upsertItems, getItem, deleteItem, recordInteractions];
