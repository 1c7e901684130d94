import { AppError, type CallContext } from '@switchyard/shared';
import type { ListDeliveriesRequest__Output } from '@switchyard/shared/generated/switchyard/notification/v1/ListDeliveriesRequest';
import type { ListDeliveriesResponse } from '@switchyard/shared/generated/switchyard/notification/v1/ListDeliveriesResponse';
import { CALLBACK_TARGET, type DeliveryStatus } from '../model';
import { findWebhook, organizationOf, toDelivery } from './common';
import type { HandlerDeps } from './deps';

const DEFAULT_LIMIT = 50;
const STATUSES: readonly DeliveryStatus[] = ['pending', 'succeeded', 'failed'];

function deliveryStatusOf(status: string): DeliveryStatus | undefined {
  if (!status) return undefined;
  if (!(STATUSES as readonly string[]).includes(status))
    throw AppError.invalid(
      `status must be one of ${STATUSES.join(', ')}`,
      '/status',
      'unknown status',
    );
  return status as DeliveryStatus;
}
const MAX_LIMIT = 100;

/**
 * Newest first. webhook_id '' lists every delivery of the organization, 'callback' the webhookUrl
 * ones; event_id narrows to one event's, status and event to a state and an event type.
 */
export async function listDeliveries(
  deps: HandlerDeps,
  request: ListDeliveriesRequest__Output,
  context: CallContext,
): Promise<ListDeliveriesResponse> {
  const organization = organizationOf(context);
  if (request.limit < 0) throw AppError.invalid('limit must be >= 0', '/limit', 'out of range');
  const limit = Math.min(request.limit || DEFAULT_LIMIT, MAX_LIMIT);
  if (request.webhook_id && request.webhook_id !== CALLBACK_TARGET) {
    await findWebhook(deps.stores.webhooks, organization, request.webhook_id);
  }
  const deliveries = await deps.stores.deliveries.list(organization, {
    webhookId: request.webhook_id || undefined,
    eventId: request.event_id || undefined,
    status: deliveryStatusOf(request.status),
    event: request.event || undefined,
    limit,
  });
  return { deliveries: deliveries.map(toDelivery) };
}
