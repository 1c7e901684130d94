import { AppError, type CallContext } from '@switchyard/shared';
import type {
  UpdateWebhookRequest__Output,
  Webhook,
} from '@switchyard/shared/proto/notification/v1';
import type { WebhookPatch } from '../store/webhooks/port';
import {
  checkedRateLimit,
  checkedUrl,
  findWebhook,
  organizationOf,
  toWebhook,
  validateEvents,
} from './common';
import type { HandlerDeps } from './deps';
import { parseFilter } from '../event-types/filter';

/** UpdateWebhook: url (checked again), events when events_set, enabled (re-enabling clears the reason). */
export async function updateWebhook(
  deps: HandlerDeps,
  request: UpdateWebhookRequest__Output,
  context: CallContext,
): Promise<Webhook> {
  const organization = organizationOf(context);
  await findWebhook(deps.stores.webhooks, organization, request.id);
  const patch: WebhookPatch = { updatedAt: new Date().toISOString() };
  if (request.url !== undefined) patch.url = await checkedUrl(deps.policy, request.url);
  if (request.events_set)
    patch.events = await validateEvents(deps.stores.eventTypes, organization, request.events);
  if (request.filter_json !== undefined) patch.filter = parseFilter(request.filter_json);
  if (request.rate_limit !== undefined) patch.rateLimit = checkedRateLimit(request.rate_limit);
  if (request.enabled !== undefined) {
    patch.enabled = request.enabled;
    patch.disabledReason = request.enabled ? '' : 'disabled by the user';
    if (request.enabled) {
      patch.failingSince = undefined;
      patch.preparationFailures = undefined;
    }
  }
  const updated = await deps.stores.webhooks.update(organization, request.id, patch);
  if (!updated) throw AppError.notFound(`webhook ${request.id} not found`);
  return toWebhook(updated);
}
