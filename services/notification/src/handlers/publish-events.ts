import { AppError, createEvent, newId, type CallContext } from '@switchyard/shared';
import type {
  PublishedEvent__Output,
  PublishEventsRequest__Output,
  PublishEventsResponse,
  PublishResult,
} from '@switchyard/shared/proto/notification/v1';
import { schemaKey } from '../event-types/schemas';
import type { EventTypeRecord } from '../store/event-types/port';
import { organizationOf } from './common';
import type { HandlerDeps } from './deps';

export const MAX_PUBLISHED_EVENTS = 100;
/** The source of events published through the API, as the bus's envelopes name it. */
const API_SOURCE = 'api';

/**
 * Checks each event against its type's current schema and puts those that pass on the bus
 * (domain events, keyed by organization); the notification consumer turns them into deliveries.
 * One answer per event: accepted with its id, or why not (unknown type, data failing the schema
 * with each failing JSON pointer). The id makes a retry create nothing new: deliveries are
 * one per (event id, webhook).
 */
export async function publishEvents(
  deps: HandlerDeps,
  request: PublishEventsRequest__Output,
  context: CallContext,
): Promise<PublishEventsResponse> {
  const organization = organizationOf(context);
  if (request.events.length === 0 || request.events.length > MAX_PUBLISHED_EVENTS) {
    throw AppError.invalid(
      `publish 1 to ${MAX_PUBLISHED_EVENTS} events at once`,
      '/events',
      'out of range',
    );
  }
  const types = new Map<string, Promise<EventTypeRecord | undefined>>();
  const typeOf = (name: string) => {
    if (!types.has(name)) types.set(name, deps.stores.eventTypes.get(organization, name));
    return types.get(name)!;
  };
  const results: PublishResult[] = [];
  for (const event of request.events) {
    const id = event.id || newId('evt');
    const checked = checkEvent(deps, event, await typeOf(event.type));
    if ('error_code' in checked) {
      results.push({ id, ...checked });
      continue;
    }
    await deps.bus.publish(
      createEvent('domain.event', {
        id,
        source: API_SOURCE,
        organization,
        data: {
          type: event.type,
          ...(event.key && { key: event.key }),
          version: checked.version,
          data: checked.data,
        },
      }),
    );
    results.push({ id, error_code: '', error_message: '', problems: [] });
  }
  return { results };
}

type Checked =
  { version: number; data: Record<string, unknown> } | Required<Omit<PublishResult, 'id'>>;

function checkEvent(
  deps: HandlerDeps,
  event: PublishedEvent__Output,
  type: EventTypeRecord | undefined,
): Checked {
  if (!type || type.deletedAt) {
    return {
      error_code: 'not_found',
      error_message: `event type ${event.type} not found${type ? ' (deleted)' : ''}`,
      problems: [],
    };
  }
  const data = parsedObject(event.data_json);
  if (!data) {
    return {
      error_code: 'invalid_request',
      error_message: 'data must be a JSON object',
      problems: [{ pointer: '/data', message: 'must be object' }],
    };
  }
  const current = type.versions[type.versions.length - 1]!;
  const violations = deps.eventSchemas.violations(schemaKey(type, current), current.schema, data);
  if (violations.length > 0) {
    return {
      error_code: 'invalid_request',
      error_message: `data does not match ${type.name} version ${current.version}`,
      problems: violations.map((v) => ({ pointer: `/data${v.pointer}`, message: v.message })),
    };
  }
  return { version: current.version, data };
}

function parsedObject(json: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(json) as unknown;
    if (typeof value === 'object' && value !== null && !Array.isArray(value))
      return value as Record<string, unknown>;
  } catch {
    // Not JSON: refused as not an object.
  }
  return undefined;
}
