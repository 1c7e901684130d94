import type { EventEnvelope } from '@switchyard/shared';
import type { EventFanOut } from '../events/fan-out';

/**
 * A budget reached a share of its limit (budget.threshold_reached from the gateway, which fires
 * each once per budget, limit, share and period): the organization's budget_threshold webhooks
 * are sent it. The event id is the delivery's, so an event consumed again is not sent again.
 */
export async function notifyBudgetThreshold(
  fanOut: EventFanOut,
  event: EventEnvelope<'budget.threshold_reached'>,
): Promise<void> {
  await fanOut.send(event.organization, 'budget_threshold', event.id, event.time, {
    event: 'budget_threshold',
    organization: event.organization,
    ...event.data,
    id: event.id,
    occurredAt: event.time,
  });
}
