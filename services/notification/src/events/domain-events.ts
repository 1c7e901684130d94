import type { EventEnvelope } from '@switchyard/shared';
import type { DomainEventName } from '../model';
import type { EventFanOut } from './fan-out';

/**
 * domain.event -> the webhooks subscribed to its type. The body follows the built-in events'
 * (event, organization, id, occurredAt) with the type's schema version, the key and the data
 * as published.
 */
export async function handleDomainEvent(
  event: EventEnvelope<'domain.event'>,
  fanOut: EventFanOut,
): Promise<void> {
  const { type, key, version, data } = event.data;
  const name = type as DomainEventName;
  await fanOut.send(event.organization, name, event.id, event.time, {
    event: name,
    organization: event.organization,
    id: event.id,
    occurredAt: event.time,
    schemaVersion: version,
    key: key ?? null,
    data,
  });
}
