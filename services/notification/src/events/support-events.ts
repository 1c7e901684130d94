import type { EventEnvelope } from '@switchyard/shared';
import type { EventFanOut } from './fan-out';

/** support.escalated -> support_escalated webhooks. */
export async function handleSupportEvent(
  event: EventEnvelope<'support.escalated'>,
  fanOut: EventFanOut,
): Promise<void> {
  await fanOut.send(event.organization, 'support_escalated', event.id, event.time, {
    event: 'support_escalated',
    organization: event.organization,
    sessionId: event.data.sessionId,
    userId: event.data.userId,
    agent: event.data.agent,
    summary: event.data.summary,
    ...(event.data.reason ? { reason: event.data.reason } : {}),
    id: event.id,
    occurredAt: event.time,
  });
}
