import { withDeps, type RecommendationServiceServer } from '@switchyard/shared';
import { deleteItem } from './delete-item';
import type { HandlerDeps } from './deps';
import { getItem } from './get-item';
import { rebuildModel } from './rebuild-model';
import { recommend } from './recommend';
import { recordInteractions } from './record-interactions';
import { upsertItems } from './upsert-items';

/** The service's handlers: each RPC a transport-free function, bound to the service's deps. */
export function recommendationHandlers(deps: HandlerDeps): RecommendationServiceServer {
  return withDeps(deps, {
    recommend,
    upsertItems,
    recordInteractions,
    getItem,
    deleteItem,
    rebuildModel,
  });
}

export type { HandlerDeps } from './deps';
