import { onceKeyOf, UsageRoutes, type CallContext } from '@switchyard/shared';
import type {
  RecommendRequest__Output,
  RecommendResponse,
} from '@switchyard/shared/proto/recommendation/v1';
import type { RequestFilters } from '../model/item-filters';
import { recommend as rankForUser } from '../model/recommender';
import { isCatalog, type Catalog } from '../model/types';
import type { HandlerDeps } from './deps';
import { toProtoItem } from './item-mapping';
import { checkId, FieldErrors, requireOrganization } from './validation';

export const DEFAULT_RECOMMENDATIONS = 10;
export const MAX_RECOMMENDATIONS = 100;

/** Error fields use the camelCase names of the HTTP body (userId, currentItemId, numRecommendations). */
function validate(request: RecommendRequest__Output): { count: number; filters: RequestFilters } {
  const errors = new FieldErrors();
  checkId(errors, '/userId', request.user_id);
  checkId(errors, '/currentItemId', request.current_item_id, true);
  // proto3 cannot tell 0 from unset, so 0 means "default".
  const count =
    request.num_recommendations === 0 ? DEFAULT_RECOMMENDATIONS : request.num_recommendations;
  if (!Number.isInteger(count) || count < 1 || count > MAX_RECOMMENDATIONS) {
    errors.add('/numRecommendations', `must be an integer between 1 and ${MAX_RECOMMENDATIONS}`);
  }
  if (request.catalog !== '' && !isCatalog(request.catalog)) {
    errors.add('/catalog', 'must be one of ecommerce, ticketing, education');
  }
  const minPrice = request.min_price ?? undefined;
  const maxPrice = request.max_price ?? undefined;
  if (minPrice !== undefined && maxPrice !== undefined && minPrice > maxPrice)
    errors.add('/maxPrice', 'must not be below minPrice');
  if (!Number.isInteger(request.max_per_category) || request.max_per_category < 0) {
    errors.add('/maxPerCategory', 'must be an integer >= 0 (0: no limit)');
  }
  errors.throwIfAny();
  const catalog: Catalog | undefined = isCatalog(request.catalog) ? request.catalog : undefined;
  return {
    count,
    filters: {
      catalog,
      categories: request.categories,
      minPrice,
      maxPrice,
      maxPerCategory: request.max_per_category,
    },
  };
}

export async function recommend(
  deps: HandlerDeps,
  request: RecommendRequest__Output,
  context: CallContext,
): Promise<RecommendResponse> {
  const organization = requireOrganization(context);
  const { count, filters } = validate(request);
  const profile = await deps.profiles.get(organization, request.user_id);
  const model = deps.models.current(organization);
  const result = await rankForUser(
    model,
    profile,
    deps.items,
    {
      organization,
      userId: request.user_id,
      currentItemId: request.current_item_id || undefined,
      count,
      filters,
      now: (deps.now?.() ?? new Date()).getTime(),
    },
    model ? [] : deps.models.popularBeforeModel(organization),
  );
  // Counted as a call of the route (no tokens, no cost), under the model that ranked: a retry of
  // the same call (its Idempotency-Key) has the same event id, so it is counted once.
  await deps.usage.record({
    organization,
    keyId: context.keyId,
    requestId: context.requestId,
    route: UsageRoutes.recommend,
    model: `recommendation:${model?.data.algorithm ?? 'popularity'}`,
    tokensInput: 0,
    tokensOutput: 0,
    cost: 0,
    outcome: 'succeeded',
    eventId: onceKeyOf(context, 'Recommend')?.usageEventId,
  });
  if (result.currentItemIgnored) {
    // Not an error: the page may show an item not ingested yet. Only logged, the response shape stays.
    deps.logger.debug(
      { requestId: context.requestId, currentItemId: request.current_item_id },
      'unknown current item ignored',
    );
  }
  return {
    user_id: request.user_id,
    recommendations: result.recommendations.map((r) => ({
      item_id: r.itemId,
      score: r.score,
      reason: r.reason,
      item: toProtoItem(r.item),
    })),
    request_id: context.requestId,
  };
}
