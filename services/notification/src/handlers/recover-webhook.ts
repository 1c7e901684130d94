import { AppError, type CallContext } from '@switchyard/shared';
import type {
  RecoverWebhookRequest__Output,
  RecoverWebhookResponse,
} from '@switchyard/shared/proto/notification/v1';
import { deliveryState, type DeliveryRecord } from '../model';
import { findWebhook, organizationOf } from './common';
import type { HandlerDeps } from './deps';

/** Deliveries looked at per recovery at most (newest first); a repeat recovers the rest. */
export const MAX_RECOVERY_SCAN = 10_000;

/**
 * RecoverWebhook, as Svix's "recover failed messages since": every message of the webhook whose
 * newest delivery since `since` failed is sent again (a replay: same body and webhook-id, fresh
 * signature, to the current URL), oldest first. A message already replayed with success, or
 * being retried, is not sent again, so recovering twice sends nothing twice.
 */
export async function recoverWebhook(
  deps: HandlerDeps,
  request: RecoverWebhookRequest__Output,
  context: CallContext,
): Promise<RecoverWebhookResponse> {
  const organization = organizationOf(context);
  const since = Date.parse(request.since);
  if (!request.since || Number.isNaN(since))
    throw AppError.invalid('since must be an RFC 3339 time', '/since', 'invalid time');
  const webhook = await findWebhook(deps.stores.webhooks, organization, request.webhook_id);
  if (!webhook.enabled)
    throw new AppError('conflict', 'the webhook is disabled; enable it before recovering');
  const deliveries = await deps.stores.deliveries.list(organization, {
    webhookId: webhook.id,
    since: new Date(since).toISOString(),
    limit: MAX_RECOVERY_SCAN,
  });
  // Newest first: the first delivery seen of a message is its latest.
  const latest = new Map<string, DeliveryRecord>();
  for (const delivery of deliveries)
    if (!latest.has(delivery.messageId)) latest.set(delivery.messageId, delivery);
  // Cancelled ones were stopped on purpose: not sent again.
  const failed = [...latest.values()].filter((d) => deliveryState(d) === 'failed').reverse();
  if (failed.length > 0) await deps.engine.replayAll(failed, webhook.url);
  return { recovered: failed.length };
}
