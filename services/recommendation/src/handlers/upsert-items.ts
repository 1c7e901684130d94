import type { CallContext } from '@switchyard/shared';
import type {
  UpsertItemsRequest__Output,
  UpsertItemsResponse,
} from '@switchyard/shared/proto/recommendation/v1';
import type { CatalogItem } from '../model/types';
import type { HandlerDeps } from './deps';
import { toCatalogItem } from './item-mapping';
import { checkBatchSize, FieldErrors, requireOrganization } from './validation';

/** All-or-nothing: one invalid item rejects the batch, so a retry after fixing it is simple. */
export async function upsertItems(
  deps: HandlerDeps,
  request: UpsertItemsRequest__Output,
  context: CallContext,
): Promise<UpsertItemsResponse> {
  const organization = requireOrganization(context);
  checkBatchSize('/items', request.items.length, deps.maxBatchSize);
  const errors = new FieldErrors();
  const now = deps.now?.() ?? new Date();
  const items: CatalogItem[] = [];
  request.items.forEach((input, index) => {
    const item = toCatalogItem(input, index, errors, now);
    if (item) items.push(item);
  });
  errors.throwIfAny();
  const upserted = await deps.items.upsert(organization, items);
  await deps.replicaEvents.catalogChanged(organization, [...new Set(items.map((i) => i.itemId))]);
  await deps.publisher.publish(organization, 'catalog_items', upserted);
  return { upserted, duplicates: items.length - upserted };
}
