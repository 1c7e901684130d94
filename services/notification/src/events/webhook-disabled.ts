import type { WebhookRecord } from '../model';
import type { WebhookFanOut } from './fan-out';

/**
 * The organization hears that a webhook was disabled through its other webhooks registered for
 * webhook_disabled (the disabled one is excluded, being disabled). The event id is derived from
 * the webhook and the time, so a repeated call creates no second delivery.
 */
export async function notifyWebhookDisabled(
  fanOut: WebhookFanOut,
  webhook: WebhookRecord,
  reason: string,
  disabledAt: string,
): Promise<void> {
  const id = `evt_webhook_disabled_${webhook.id}_${Date.parse(disabledAt)}`;
  await fanOut.send(webhook.organization, 'webhook_disabled', id, disabledAt, {
    event: 'webhook_disabled',
    organization: webhook.organization,
    webhookId: webhook.id,
    url: webhook.url,
    reason,
    id,
    occurredAt: disabledAt,
  });
}
