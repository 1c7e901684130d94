import type { HandlerDeps } from './deps';
import { deleteItemHandler, getItemHandler } from './item-lookup';
import { rebuildModelHandler } from './rebuild-model';
import { recommendHandler } from './recommend';
import { recordInteractionsHandler } from './record-interactions';
import { upsertItemsHandler } from './upsert-items';

export type { HandlerDeps } from './deps';

/** The RPCs as transport-free (request, context) => response functions. */
export function createRecommendationHandlers(deps: HandlerDeps) {
  return {
    Recommend: recommendHandler(deps),
    UpsertItems: upsertItemsHandler(deps),
    RecordInteractions: recordInteractionsHandler(deps),
    GetItem: getItemHandler(deps),
    DeleteItem: deleteItemHandler(deps),
    RebuildModel: rebuildModelHandler(deps),
  };
}

export type RecommendationHandlers = ReturnType<typeof createRecommendationHandlers>;
