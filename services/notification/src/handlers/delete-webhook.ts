import { AppError, type CallContext } from '@switchyard/shared';
import type {
  DeleteWebhookRequest__Output,
  DeleteWebhookResponse,
} from '@switchyard/shared/proto/notification/v1';
import { organizationOf } from './common';
import type { HandlerDeps } from './deps';

export async function deleteWebhook(
  deps: HandlerDeps,
  request: DeleteWebhookRequest__Output,
  context: CallContext,
): Promise<DeleteWebhookResponse> {
  const deleted = request.id
    ? await deps.stores.webhooks.delete(organizationOf(context), request.id)
    : false;
  if (!deleted) throw AppError.notFound(`webhook ${request.id} not found`);
  return { deleted: true };
}
