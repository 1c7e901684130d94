import type { CallContext } from '@switchyard/shared';
import type {
  DeliveryStats,
  GetDeliveryStatsRequest__Output,
} from '@switchyard/shared/proto/notification/v1';
import { findWebhook, isoTime, organizationOf } from './common';
import type { HandlerDeps } from './deps';

/** A webhook's deliveries created in [since, until), counted by state. */
export async function getDeliveryStats(
  deps: HandlerDeps,
  request: GetDeliveryStatsRequest__Output,
  context: CallContext,
): Promise<DeliveryStats> {
  const organization = organizationOf(context);
  await findWebhook(deps.stores.webhooks, organization, request.webhook_id);
  return deps.stores.deliveries.count(organization, request.webhook_id, {
    since: isoTime(request.since, '/since'),
    until: isoTime(request.until, '/until'),
  });
}
