import { AppError, type CallContext } from '@switchyard/shared';
import type {
  DeleteItemRequest__Output,
  DeleteItemResponse,
} from '@switchyard/shared/proto/recommendation/v1';
import type { HandlerDeps } from './deps';
import { requireOrganization, validItemId } from './validation';

/**
 * Removes the item from the catalog, so it is never recommended again. Its interactions stay in
 * the model: re-upserting the item brings it back with its history.
 */
export async function deleteItem(
  deps: HandlerDeps,
  request: DeleteItemRequest__Output,
  context: CallContext,
): Promise<DeleteItemResponse> {
  const organization = requireOrganization(context);
  const deleted = await deps.items.delete(organization, validItemId(request.item_id));
  if (!deleted) throw AppError.notFound(`item ${request.item_id} not found`);
  await deps.replicaEvents.catalogChanged(organization, [request.item_id]);
  return { deleted };
}
