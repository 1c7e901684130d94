import { AppError, type CallContext } from '@switchyard/shared';
import type {
  GetEventRequest__Output,
  ListEventsRequest__Output,
  ListEventsResponse,
  RecordedEvent,
} from '@switchyard/shared/proto/notification/v1';
import type { EventRecord } from '../store/events/port';
import { decodeCursor, isoTime, organizationOf, pageLimit, pageOf } from './common';
import type { HandlerDeps } from './deps';

const PAGE_LIMITS = { default: 50, max: 200 };

function recordedEvent(event: EventRecord): RecordedEvent {
  return {
    id: event.id,
    type: event.type,
    key: event.key ?? '',
    schema_version: event.schemaVersion ?? 0,
    data_json: JSON.stringify(event.data ?? null),
    occurred_at: event.occurredAt,
    received_at: event.receivedAt,
    deliveries: event.deliveries,
  };
}

/** The organization's recent events, newest first (by received time, then id), a page at a time. */
export async function listEvents(
  deps: HandlerDeps,
  request: ListEventsRequest__Output,
  context: CallContext,
): Promise<ListEventsResponse> {
  const organization = organizationOf(context);
  const limit = pageLimit(request.limit, PAGE_LIMITS);
  const after = decodeCursor(request.cursor, '/cursor');
  // One more than the page: whether there is a next one.
  const found = await deps.stores.events.list(organization, {
    type: request.type || undefined,
    key: request.key || undefined,
    since: isoTime(request.since, '/since'),
    until: isoTime(request.until, '/until'),
    after: after && { receivedAt: after[0], id: after[1] },
    limit: limit + 1,
  });
  const { page, next } = pageOf(found, limit, (last) => [last.receivedAt, last.id]);
  return { events: page.map(recordedEvent), next };
}

export async function getEvent(
  deps: HandlerDeps,
  request: GetEventRequest__Output,
  context: CallContext,
): Promise<RecordedEvent> {
  const event = await deps.stores.events.get(organizationOf(context), request.id);
  if (!event) throw AppError.notFound(`event ${request.id} not found`);
  return recordedEvent(event);
}
