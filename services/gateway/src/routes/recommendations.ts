import {
  ModelInfo,
  RecommendationsRequest,
  RecommendationsResponse,
  type RecommendBody,
} from '../schemas/recommendations';
import { itemView } from './item-view';
import { json, type AnyRoute, type RouteSpec } from './types';

const recommend: RouteSpec<RecommendBody> = {
  method: 'POST',
  path: '/api/v2/ai/recommendations',
  aliases: ['/v2/ai/recommendations'],
  operationId: 'recommendItems',
  idempotent: true,
  summary: 'Recommend items for a user, optionally relative to the item being viewed',
  tag: 'recommendations',
  auth: true,
  requestSchema: RecommendationsRequest,
  responses: {
    200: { description: 'Recommended items, best first', schema: RecommendationsResponse },
  },
  errors: ['not_found', 'rate_limited', 'quota_exceeded'],
  async handle({ body, call }, deps) {
    const response = await deps.clients.recommendation.recommend(
      {
        user_id: body.userId,
        current_item_id: body.currentItemId ?? '',
        num_recommendations: body.numRecommendations,
        catalog: body.catalog ?? '',
        categories: body.categories ?? [],
        min_price: body.minPrice,
        max_price: body.maxPrice,
        max_per_category: body.maxPerCategory ?? 0,
      },
      call,
    );
    return json(200, {
      userId: response.user_id,
      recommendations: response.recommendations.map((r) => ({
        itemId: r.item_id,
        score: r.score,
        reason: r.reason,
        item: r.item ? itemView(r.item, deps.logger) : null,
      })),
      requestId: call.requestId,
    });
  },
};

const rebuildModel: RouteSpec = {
  method: 'POST',
  path: '/api/v2/ai/recommendations/model',
  operationId: 'rebuildRecommendationModel',
  summary: "Train the organization's recommendation model now and publish it to every replica",
  tag: 'recommendations',
  auth: true,
  responses: { 200: { description: 'The model now served', schema: ModelInfo } },
  errors: ['rate_limited'],
  async handle({ call }, deps) {
    const model = await deps.clients.recommendation.rebuildModel({}, call);
    return json(200, {
      algorithm: model.algorithm,
      version: Number(model.version),
      items: model.items,
      users: model.users,
      interactions: Number(model.interactions),
      trainedAt: model.trained_at,
      trainingMs: Number(model.training_ms),
      requestId: call.requestId,
    });
  },
};

export const recommendationRoutes: AnyRoute[] = [recommend, rebuildModel];
