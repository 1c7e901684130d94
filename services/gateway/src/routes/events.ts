import { AppError, httpStatusOf, type ErrorCode } from '@switchyard/shared';
import type {
  PublishResult__Output,
  RecordedEvent__Output,
} from '@switchyard/shared/proto/notification/v1';
import {
  EventsQuery,
  MAX_EVENTS_PER_BATCH,
  PublishedEventId,
  PublishedEventResults,
  PublishEventsRequest,
  RecordedEvent,
  RecordedEventList,
  type EventsQueryParams,
  type PublishedEventBody,
  type PublishEventsBody,
} from '../schemas/event-types';
import { orNull } from './proto-values';
import { json, type AnyRoute, type RouteSpec } from './types';

/** The single form or the batch form, exactly one of them. */
function eventsOf(body: PublishEventsBody): { events: PublishedEventBody[]; batch: boolean } {
  const { events, ...single } = body;
  if (events !== undefined) {
    if (Object.keys(single).length > 0)
      throw AppError.invalid('give either one event or events, not both', '/events');
    return { events, batch: true };
  }
  const { type, data } = single;
  if (type === undefined) throw AppError.invalid('type is required', '/type', 'required');
  if (data === undefined) throw AppError.invalid('data is required', '/data', 'required');
  return { events: [{ ...single, type, data }], batch: false };
}

function errorOf(result: PublishResult__Output): AppError {
  return new AppError(
    result.error_code as ErrorCode,
    result.error_message,
    result.problems.map((p) => ({ field: p.pointer, reason: p.message })),
  );
}

export const publishEvents: RouteSpec<PublishEventsBody> = {
  method: 'POST',
  path: '/api/v2/events',
  tag: 'events',
  auth: true,
  operationId: 'publishEvents',
  idempotent: true,
  maxBodyValues: 50_000,
  summary: `Publish an event of one of the organization's types, or a batch of up to ${MAX_EVENTS_PER_BATCH}`,
  description:
    'Each event is checked against the newest schema of its type and delivered as a signed webhook to the ' +
    "webhooks subscribed to the type. Single form: 202 with the event's id; 400 with one detail per failing " +
    'JSON pointer (/data/...), 404 for an unknown or deleted type. Batch form: 200 with one result per event. ' +
    'The same id (or Idempotency-Key) again creates nothing new.',
  requestSchema: PublishEventsRequest,
  responses: {
    202: { description: 'Accepted (single form)', schema: PublishedEventId },
    200: { description: 'One result per event (batch form)', schema: PublishedEventResults },
  },
  errors: ['not_found'],
  async handle({ body, call }, deps) {
    const { events, batch } = eventsOf(body);
    const { results } = await deps.clients.notification.publishEvents(
      {
        events: events.map((e) => ({
          type: e.type,
          data_json: JSON.stringify(e.data),
          key: e.key ?? '',
          id: e.id ?? '',
        })),
      },
      call,
    );
    if (!batch) {
      const [result] = results;
      if (!result) throw new AppError('internal', 'notification service answered no result');
      if (result.error_code) throw errorOf(result);
      return json(202, { id: result.id });
    }
    return json(200, {
      results: results.map((result) => {
        if (!result.error_code) return { id: result.id, status: 202 };
        const error = errorOf(result);
        return {
          id: result.id,
          status: httpStatusOf(error.code),
          error: { code: error.code, message: error.message, details: error.details },
        };
      }),
    });
  },
};

function recordedEventView(event: RecordedEvent__Output) {
  return {
    id: event.id,
    type: event.type,
    key: orNull(event.key),
    schemaVersion: event.schema_version || null,
    data: JSON.parse(event.data_json) as unknown,
    occurredAt: event.occurred_at,
    receivedAt: event.received_at,
    deliveries: event.deliveries,
  };
}

const listEvents: RouteSpec<unknown, EventsQueryParams> = {
  method: 'GET',
  path: '/api/v2/events',
  tag: 'events',
  auth: true,
  operationId: 'listEvents',
  summary:
    "The organization's recent events, newest first, with how many deliveries each produced, a page at a time",
  description:
    'Every event accepted (domain events after their schema check; refused ones go to the dead-letter topic and are not listed) ' +
    'and the built-in events but request_completed, kept for the retention configured (EVENT_RETENTION, default 7 days). ' +
    "An event's deliveries: GET /api/webhooks/{id}/deliveries?eventId=.",
  querySchema: EventsQuery,
  responses: { 200: { description: 'A page of events', schema: RecordedEventList } },
  async handle({ query, call }, deps) {
    const page = await deps.clients.notification.listEvents(
      {
        limit: query.limit,
        cursor: query.cursor ?? '',
        type: query.type ?? '',
        key: query.key ?? '',
        since: query.since ?? '',
        until: query.until ?? '',
      },
      call,
    );
    return json(200, { events: page.events.map(recordedEventView), next: orNull(page.next) });
  },
};

const getEvent: RouteSpec = {
  method: 'GET',
  path: '/api/v2/events/:id',
  tag: 'events',
  auth: true,
  operationId: 'getEvent',
  summary: 'One recent event, with its data and how many deliveries it produced',
  responses: { 200: { description: 'The event', schema: RecordedEvent } },
  errors: ['not_found'],
  async handle({ params, call }, deps) {
    return json(
      200,
      recordedEventView(await deps.clients.notification.getEvent({ id: params.id }, call)),
    );
  },
};

export const eventRoutes: AnyRoute[] = [publishEvents, listEvents, getEvent];
