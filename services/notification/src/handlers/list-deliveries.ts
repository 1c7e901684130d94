import { AppError, type CallContext } from '@switchyard/shared';
import type {
  ListDeliveriesRequest__Output,
  ListDeliveriesResponse,
} from '@switchyard/shared/proto/notification/v1';
import {
  CALLBACK_TARGET,
  DELIVERY_STATES,
  type DeliveryState,
  type DeliveryStatus,
} from '../model';
import { findWebhook, isoTime, organizationOf, toDelivery } from './common';
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

function deliveryStateOf(state: string): DeliveryState | undefined {
  if (!state) return undefined;
  if (!(DELIVERY_STATES as readonly string[]).includes(state))
    throw AppError.invalid(
      `state must be one of ${DELIVERY_STATES.join(', ')}`,
      '/state',
      'unknown state',
    );
  return state as DeliveryState;
}

/**
 * Newest first. webhook_id '' lists every delivery of the organization, 'callback' the webhookUrl
 * ones; event_id narrows to one event's, status (or state) and event to a state and an event
 * type, since and until to a window of creation times.
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
    state: deliveryStateOf(request.state),
    since: isoTime(request.since, '/since'),
    until: isoTime(request.until, '/until'),
    limit,
  });
  return { deliveries: deliveries.map(toDelivery) };
}
