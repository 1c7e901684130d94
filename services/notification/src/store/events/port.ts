import type { EventName } from '../../model';

/** One event the notification service accepted and fanned out to the organization's webhooks. */
export interface EventRecord {
  organization: string;
  /** The event's id (the webhook-id of its deliveries' messages). */
  id: string;
  /** A built-in event (invoice_paid...) or one of the organization's types (order.shipped). */
  type: EventName;
  /** The ordering key it was published with; none for built-in events and events without one. */
  key?: string;
  /** The schema version its data conforms to (domain events only). */
  schemaVersion?: number;
  /** What was published (domain events), or the built-in event's fields. */
  data: unknown;
  /** When the event happened, as its producer said. */
  occurredAt: string;
  /** When this service accepted it: the list's order. */
  receivedAt: string;
  /** Deliveries it produced to the organization's webhooks (a request's callback not counted). */
  deliveries: number;
}

/** Where a page starts: after this event, in newest-first order. */
export interface EventCursor {
  receivedAt: string;
  id: string;
}

/** Newest first (receivedAt, then id, descending), at most limit. */
export interface EventFilter {
  /** An exact type, or a prefix ending in `.*` (order.* is every order.<...> type). */
  type?: string;
  key?: string;
  /** Received at or after this ISO time. */
  since?: string;
  /** Received before this ISO time. */
  until?: string;
  /** The events after this one. */
  after?: EventCursor;
  limit: number;
}

/**
 * The organizations' recent events, written with each consumed batch (one write for the batch,
 * never one per event) and kept for a bounded time. Idempotent by (organization, event id): an
 * event recorded again (a batch handled again) keeps its first record.
 */
export interface EventStore {
  /** Records the events in one write; those recorded before are left as they are. */
  record(events: EventRecord[]): Promise<void>;
  get(organization: string, id: string): Promise<EventRecord | undefined>;
  list(organization: string, filter: EventFilter): Promise<EventRecord[]>;
}

export function eventRecordKey(organization: string, id: string): string {
  return JSON.stringify([organization, id]);
}

/** The [from, to) range of types a filter names: one type, or every type under a `prefix.*`. */
export function typeRange(type: string): { from: string; to: string } | { exact: string } {
  if (!type.endsWith('.*')) return { exact: type };
  const prefix = type.slice(0, -1);
  // '/' follows '.': every string that starts with the prefix sorts in [prefix, prefix-with-'/').
  return { from: prefix, to: `${prefix.slice(0, -1)}/` };
}

/** Whether a record comes after the cursor in newest-first order. */
export function isAfter(record: EventCursor, cursor: EventCursor): boolean {
  return (
    record.receivedAt < cursor.receivedAt ||
    (record.receivedAt === cursor.receivedAt && record.id < cursor.id)
  );
}
