import { AppError, type CallContext } from '@switchyard/shared';
import type {
  Delivery,
  ReplayDeliveryRequest__Output,
} from '@switchyard/shared/proto/notification/v1';
import { CALLBACK_TARGET } from '../model';
import { findDelivery, findWebhook, organizationOf, toDelivery } from './common';
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
  const original = await findDelivery(
    deps.stores.deliveries,
    organization,
    request.webhook_id,
    request.delivery_id,
  );
  let url = original.url;
  if (original.webhookId !== CALLBACK_TARGET) {
    const webhook = await findWebhook(deps.stores.webhooks, organization, original.webhookId);
    if (!webhook.enabled)
      throw new AppError('conflict', 'the webhook is disabled; enable it before replaying');
    url = webhook.url;
  }
  return toDelivery(await deps.engine.replay(original, url));
}
