import type { EventEnvelope } from '@switchyard/shared';
import type { EventFanOut } from './fan-out';

/** data.updated -> data_updated webhooks. */
export async function handleDataEvent(
  event: EventEnvelope<'data.updated'>,
  fanOut: EventFanOut,
): Promise<void> {
  await fanOut.send(event.organization, 'data_updated', event.id, event.time, {
    event: 'data_updated',
    organization: event.organization,
    dataset: event.data.dataset,
    count: event.data.count,
    id: event.id,
    occurredAt: event.time,
  });
}
