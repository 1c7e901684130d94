import { AppError, type CallContext } from '@switchyard/shared';
import type {
  CancelDeliveryRequest__Output,
  Delivery,
} from '@switchyard/shared/proto/notification/v1';
import { findDelivery, organizationOf, toDelivery } from './common';
import type { HandlerDeps } from './deps';

/**
 * CancelDelivery: a pending delivery (not attempted yet, or failing with retries scheduled) gets
 * no more attempts; it ends failed, marked cancelled. An attempt already out still records its
 * answer. A finished delivery cannot be cancelled (conflict): replay it instead.
 */
export async function cancelDelivery(
  deps: HandlerDeps,
  request: CancelDeliveryRequest__Output,
  context: CallContext,
): Promise<Delivery> {
  const organization = organizationOf(context);
  const found = await findDelivery(
    deps.stores.deliveries,
    organization,
    request.webhook_id,
    request.delivery_id,
  );
  if (found.status !== 'pending')
    throw new AppError('conflict', `delivery ${found.id} is ${found.status}: nothing to cancel`);
  const cancelled = await deps.stores.deliveries.cancel(
    organization,
    found.id,
    new Date().toISOString(),
  );
  if (!cancelled?.cancelledAt)
    throw new AppError(
      'conflict',
      `delivery ${found.id} finished (${cancelled?.status ?? 'gone'}) before it could be cancelled`,
    );
  return toDelivery(cancelled);
}
