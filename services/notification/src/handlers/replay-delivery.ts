import { AppError, type CallContext } from '@switchyard/shared';
import type { Delivery } from '@switchyard/shared/generated/switchyard/notification/v1/Delivery';
import type { ReplayDeliveryRequest__Output } from '@switchyard/shared/generated/switchyard/notification/v1/ReplayDeliveryRequest';
import { CALLBACK_TARGET } from '../model';
import { findWebhook, organizationOf, toDelivery } from './common';
import type { HandlerDeps } from './deps';

/**
 * ReplayDelivery, as Svix resends: a new delivery (own id, attempts and retries) with the same
 * body and the same webhook-id, signed afresh; it goes to the webhook's current URL.
 */
export async function replayDelivery(
  deps: HandlerDeps,
  request: ReplayDeliveryRequest__Output,
  context: CallContext,
): Promise<Delivery> {
  const organization = organizationOf(context);
  const original = request.delivery_id
    ? await deps.stores.deliveries.get(organization, request.delivery_id)
    : undefined;
  if (!original || (request.webhook_id && request.webhook_id !== original.webhookId)) {
    throw AppError.notFound(`delivery ${request.delivery_id} not found`);
  }
  let url = original.url;
  if (original.webhookId !== CALLBACK_TARGET) {
    const webhook = await findWebhook(deps.stores.webhooks, organization, original.webhookId);
    if (!webhook.enabled)
      throw new AppError('conflict', 'the webhook is disabled; enable it before replaying');
    url = webhook.url;
  }
  return toDelivery(await deps.engine.replay(original, url));
}
