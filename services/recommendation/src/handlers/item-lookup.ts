import { AppError, type CallContext } from '@switchyard/shared';
import type { DeleteItemRequest__Output } from '@switchyard/shared/generated/switchyard/recommendation/v1/DeleteItemRequest';
import type { DeleteItemResponse } from '@switchyard/shared/generated/switchyard/recommendation/v1/DeleteItemResponse';
import type { GetItemRequest__Output } from '@switchyard/shared/generated/switchyard/recommendation/v1/GetItemRequest';
import type { Item } from '@switchyard/shared/generated/switchyard/recommendation/v1/Item';
import type { HandlerDeps } from './deps';
import { toProtoItem } from './item-mapping';
import { checkId, FieldErrors, requireOrganization } from './validation';

function validItemId(itemId: string): string {
  const errors = new FieldErrors();
  checkId(errors, '/itemId', itemId);
  errors.throwIfAny();
  return itemId;
}

/** Another organization's item id is not_found, like an id that never existed. */
export function getItemHandler(deps: HandlerDeps) {
  return async (request: GetItemRequest__Output, context: CallContext): Promise<Item> => {
    const organization = requireOrganization(context);
    const item = await deps.items.get(organization, validItemId(request.item_id));
    if (!item) throw AppError.notFound(`item ${request.item_id} not found`);
    return toProtoItem(item);
  };
}

/**
 * Removes the item from the catalog, so it is never recommended again. Its interactions stay in
 * the model: re-upserting the item brings it back with its history.
 */
export function deleteItemHandler(deps: HandlerDeps) {
  return async (
    request: DeleteItemRequest__Output,
    context: CallContext,
  ): Promise<DeleteItemResponse> => {
    const organization = requireOrganization(context);
    const deleted = await deps.items.delete(organization, validItemId(request.item_id));
    if (!deleted) throw AppError.notFound(`item ${request.item_id} not found`);
    await deps.replicaEvents.catalogChanged(organization, [request.item_id]);
    return { deleted };
  };
}
