import { AppError, newId, type CallContext } from '@switchyard/shared';
import type {
  Delivery,
  SendTestEventRequest__Output,
} from '@switchyard/shared/proto/notification/v1';
import { BUILT_IN } from '../event-types/built-in';
import { subscribesTo } from '../event-types/names';
import type { EventName, WebhookEvent } from '../model';
import { findWebhook, organizationOf, toDelivery } from './common';
import type { HandlerDeps } from './deps';
import { webhookDelivery } from '../events/fan-out';

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
  const event = request.event || webhook.events[0]!;
  if (!subscribesTo(webhook.events, event) || event.endsWith('.*'))
    throw AppError.invalid(
      `the webhook is not registered for "${event}"; it has ${webhook.events.join(', ')}` +
        (event.endsWith('.*') ? ' (name one event type of the prefix)' : ''),
      '/event',
      'not one of the webhook events',
    );
  const eventId = newId('evt');
  const occurredAt = (deps.clock?.() ?? new Date()).toISOString();
  const body = {
    event,
    ...(await exampleOf(deps, organization, event)),
    id: eventId,
    occurredAt,
    test: true,
  };
  await deps.engine.deliver(
    [webhookDelivery(webhook, event as EventName, eventId, occurredAt, JSON.stringify(body))],
    { logFirst: true },
  );
  const [delivery] = await deps.stores.deliveries.list(organization, { eventId, limit: 1 });
  if (!delivery) throw new AppError('internal', 'the test delivery was not recorded');
  return toDelivery(delivery);
}

/**
 * The body of an example event besides event, id and occurredAt: a built-in event's example
 * fields, or the example of the organization's type (409 when the type has none to send).
 */
async function exampleOf(
  deps: HandlerDeps,
  organization: string,
  event: string,
): Promise<Record<string, unknown>> {
  const builtIn = BUILT_IN[event as WebhookEvent];
  if (builtIn)
    return {
      ...(builtIn.withOrganization !== false && { organization }),
      ...builtIn.example,
    };
  const type = await deps.stores.eventTypes.get(organization, event);
  const current = type?.versions[type.versions.length - 1];
  if (!type || type.deletedAt || !current) throw AppError.notFound(`event type ${event} not found`);
  if (current.example === undefined)
    throw new AppError(
      'conflict',
      `event type ${event} has no example to send; give one with PUT /api/v2/event-types/${event}`,
    );
  return {
    organization,
    schemaVersion: current.version,
    key: null,
    data: current.example,
  };
}
