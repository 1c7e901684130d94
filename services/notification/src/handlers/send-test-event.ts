import { AppError, newId, type CallContext } from '@switchyard/shared';
import type { Delivery } from '@switchyard/shared/generated/switchyard/notification/v1/Delivery';
import type { SendTestEventRequest__Output } from '@switchyard/shared/generated/switchyard/notification/v1/SendTestEventRequest';
import type { WebhookEvent } from '../model';
import { findWebhook, organizationOf, toDelivery } from './common';
import type { HandlerDeps } from './deps';
import { webhookDelivery } from '../events/fan-out';

/** The fields each event's body carries besides event, organization, id and occurredAt (contract-decisions.md). */
function exampleFields(event: WebhookEvent): Record<string, unknown> {
  switch (event) {
    case 'usage_threshold':
      return { usage: 900_000, threshold: 900_000 };
    case 'invoice_paid':
      return { invoiceId: 'inv_test', amount: 4900, currency: 'USD' };
    case 'invoice_failed':
      return {
        invoiceId: 'inv_test',
        amount: 4900,
        currency: 'USD',
        failureReason: 'card_declined',
      };
    case 'data_updated':
      return { dataset: 'test', count: 1 };
    case 'request_completed':
      return {
        requestId: 'req_test',
        result: 'An example result.',
        model: 'builtin',
        usage: { totalTokens: 42 },
      };
    case 'support_escalated':
      return {
        sessionId: 'sess_test',
        userId: 'user_test',
        agent: 'support',
        summary: 'An example escalation.',
      };
    case 'webhook_disabled':
      return {
        webhookId: 'wh_test',
        url: 'https://example.com/hooks',
        reason: 'an example reason',
      };
  }
}

/**
 * SendTestEvent, as Svix's "send example": one delivery of an example body of one of the
 * webhook's events, to that webhook only, signed and retried like any other. The body says
 * "test": true so that a receiver can tell it from a real event.
 */
export async function sendTestEvent(
  deps: HandlerDeps,
  request: SendTestEventRequest__Output,
  context: CallContext,
): Promise<Delivery> {
  const organization = organizationOf(context);
  const webhook = await findWebhook(deps.stores.webhooks, organization, request.webhook_id);
  if (!webhook.enabled)
    throw new AppError('conflict', 'the webhook is disabled; enable it before sending a test');
  const event = (request.event || webhook.events[0]) as WebhookEvent;
  if (!webhook.events.includes(event))
    throw AppError.invalid(
      `the webhook is not registered for "${request.event}"; it has ${webhook.events.join(', ')}`,
      '/event',
      'not one of the webhook events',
    );
  const eventId = newId('evt');
  const occurredAt = (deps.clock?.() ?? new Date()).toISOString();
  const body = {
    event,
    organization,
    ...exampleFields(event),
    id: eventId,
    occurredAt,
    test: true,
  };
  await deps.engine.deliver(
    [webhookDelivery(webhook, event, eventId, occurredAt, JSON.stringify(body))],
    { logFirst: true },
  );
  const [delivery] = await deps.stores.deliveries.list(organization, { eventId, limit: 1 });
  if (!delivery) throw new AppError('internal', 'the test delivery was not recorded');
  return toDelivery(delivery);
}
