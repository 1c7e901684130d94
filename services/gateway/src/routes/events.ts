import { AppError, httpStatusOf, type ErrorCode } from '@switchyard/shared';
import type { PublishResult__Output } from '@switchyard/shared/proto/notification/v1';
import {
  MAX_EVENTS_PER_BATCH,
  PublishedEventId,
  PublishedEventResults,
  PublishEventsRequest,
  type PublishedEventBody,
  type PublishEventsBody,
} from '../schemas/event-types';
import { json, type RouteSpec } from './types';

/** The single form or the batch form, exactly one of them. */
function eventsOf(body: PublishEventsBody): { events: PublishedEventBody[]; batch: boolean } {
  const { events, ...single } = body;
  if (events !== undefined) {
    if (Object.keys(single).length > 0)
      throw AppError.invalid('give either one event or events, not both', '/events');
    return { events, batch: true };
  }
  if (single.type === undefined) throw AppError.invalid('type is required', '/type', 'required');
  if (single.data === undefined) throw AppError.invalid('data is required', '/data', 'required');
  return { events: [single as PublishedEventBody], batch: false };
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
