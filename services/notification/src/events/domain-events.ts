import { Topics, type EventBus, type EventEnvelope } from '@switchyard/shared';
import { schemaKey, type EventSchemas } from '../event-types/schemas';
import { domainEventsRejectedTotal } from '../metrics';
import type { DomainEventName } from '../model';
import type { EventTypeRecord, EventTypeStore } from '../store/event-types/port';
import {
  rejectedEventKey,
  type RejectedEvent,
  type RejectedEventStore,
} from '../store/rejected-events/port';
import type { EventFanOut } from './fan-out';

export type DomainEvent = EventEnvelope<'domain.event'>;

/** Why a consumed domain event was refused (the metric's reason label). */
export type RejectionReason = 'unknown_type' | 'deleted_type' | 'unknown_version' | 'schema';

export interface DomainEventChecks {
  eventTypes: EventTypeStore;
  schemas: EventSchemas;
  /** Where refused events go: the dead-letter topic, with the reason. */
  bus: EventBus;
  /** The events dead-lettered already: a batch handled again sends each once. */
  rejectedEvents: RejectedEventStore;
  /** The consumer group, named on the dead letters. */
  group: string;
}

/**
 * The domain events of a consumed batch that may be delivered, each with the schema version its
 * data conforms to. Events published over HTTP were checked then and name that version; those a
 * producer wrote to the topic name none and are checked against the type's current version. An
 * event whose type the organization does not have (or deleted), or whose data fails the schema,
 * goes to the dead-letter topic with the reason and is counted: never delivered, never dropped
 * silently. Each (organization, type) is read once per batch. Dead-lettering is idempotent by
 * event id: an event already dead-lettered (the batch failed later and is handled again, here or
 * by the replica that took the partition over) is not sent again. A process that dies between the
 * send and its record sends it once more, with the same event-id header.
 */
export async function checkDomainEvents(
  events: DomainEvent[],
  checks: DomainEventChecks,
): Promise<Array<DomainEvent & { data: { version: number } }>> {
  const types = new Map<string, Promise<EventTypeRecord | undefined>>();
  const typeOf = (organization: string, name: string) => {
    const key = `${organization}\u0000${name}`;
    if (!types.has(key)) types.set(key, checks.eventTypes.get(organization, name));
    return types.get(key)!;
  };
  const accepted: Array<DomainEvent & { data: { version: number } }> = [];
  const refused: Array<{ event: DomainEvent; reason: RejectionReason; message: string }> = [];
  for (const event of events) {
    const type = await typeOf(event.organization, event.data.type);
    const checked = check(checks.schemas, event, type);
    if ('version' in checked)
      accepted.push({ ...event, data: { ...event.data, version: checked.version } });
    else refused.push({ event, ...checked });
  }
  if (refused.length === 0) return accepted;
  const done = await checks.rejectedEvents.recorded(
    refused.map(({ event }) => ({ organization: event.organization, eventId: event.id })),
  );
  const sent: RejectedEvent[] = [];
  try {
    for (const { event, reason, message } of refused) {
      if (done.has(rejectedEventKey(event.organization, event.id))) continue;
      await checks.bus.deadLetter(event, message, { group: checks.group, topic: Topics.domain });
      domainEventsRejectedTotal.inc({ reason });
      const rejectedAt = new Date().toISOString();
      sent.push({
        organization: event.organization,
        eventId: event.id,
        reason: message,
        rejectedAt,
      });
    }
  } finally {
    // Those sent before a failure too: the batch's retry skips them.
    await checks.rejectedEvents.record(sent);
  }
  return accepted;
}

function check(
  schemas: EventSchemas,
  event: DomainEvent,
  type: EventTypeRecord | undefined,
): { version: number } | { reason: RejectionReason; message: string } {
  const { type: name, version: named, data } = event.data;
  if (!type) {
    return {
      reason: 'unknown_type',
      message: `event type ${name} is not defined by organization ${event.organization}`,
    };
  }
  // Named by an HTTP publish that checked it then: delivered even if the type was deleted since.
  if (named) {
    const version = type.versions.find((v) => v.version === named);
    if (!version)
      return { reason: 'unknown_version', message: `event type ${name} has no version ${named}` };
    return conforms(schemas, type, version, data);
  }
  if (type.deletedAt)
    return { reason: 'deleted_type', message: `event type ${name} is deleted: it takes no events` };
  return conforms(schemas, type, type.versions[type.versions.length - 1]!, data);
}

function conforms(
  schemas: EventSchemas,
  type: EventTypeRecord,
  version: EventTypeRecord['versions'][number],
  data: unknown,
): { version: number } | { reason: RejectionReason; message: string } {
  const violations = schemas.violations(schemaKey(type, version), version.schema, data);
  if (violations.length === 0) return { version: version.version };
  const where = violations.map((v) => `/data${v.pointer} ${v.message}`).join('; ');
  return {
    reason: 'schema',
    message: `data does not match ${type.name} version ${version.version}: ${where}`,
  };
}

/**
 * domain.event -> the webhooks subscribed to its type. The body follows the built-in events'
 * (event, organization, id, occurredAt) with the type's schema version, the key and the data
 * as published. Deliveries of events with a key go to each webhook in publish order.
 */
export async function handleDomainEvent(
  event: DomainEvent & { data: { version: number } },
  fanOut: EventFanOut,
): Promise<void> {
  const { type, key, version, data } = event.data;
  const name = type as DomainEventName;
  await fanOut.send(
    event.organization,
    name,
    event.id,
    event.time,
    {
      event: name,
      organization: event.organization,
      id: event.id,
      occurredAt: event.time,
      schemaVersion: version,
      key: key ?? null,
      data,
    },
    [],
    key ?? undefined,
  );
}
