import { AppError, type CallContext } from '@switchyard/shared';
import type { GetItemRequest__Output, Item } from '@switchyard/shared/proto/recommendation/v1';
import type { HandlerDeps } from './deps';
import { toProtoItem } from './item-mapping';
import { requireOrganization, validItemId } from './validation';

/** Another organization's item id is not_found, like an id that never existed. */
export async function getItem(
  deps: HandlerDeps,
  request: GetItemRequest__Output,
  context: CallContext,
): Promise<Item> {
  const organization = requireOrganization(context);
  const item = await deps.items.get(organization, validItemId(request.item_id));
  if (!item) throw AppError.notFound(`item ${request.item_id} not found`);
  return toProtoItem(item);
}
