import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import { EVENT_TYPE_NAME_PATTERN, MAX_EVENT_TYPE_NAME } from '@switchyard/shared';
import { DATE_TIME, type JsonSchema } from './common';
import { subscribedEvent } from './webhooks';

const NAME = {
  type: 'string',
  pattern: EVENT_TYPE_NAME_PATTERN,
  maxLength: MAX_EVENT_TYPE_NAME,
  description: 'Dotted lowercase words, e.g. order.shipped',
} as const;
const DESCRIPTION = { type: 'string', maxLength: 1000 } as const;
const SCHEMA = {
  type: 'object',
  description:
    "A JSON Schema 2020-12 document for the events' data (checked when saved: strict, no remote $ref)",
} as const;

const EXAMPLE = {
  type: 'object',
  description:
    'An example of the data, checked against the schema when saved (400 at each failing place): the catalog shows it and test events send it',
} as const;

export const CreateEventTypeRequest = {
  title: 'CreateEventTypeRequest',
  type: 'object',
  additionalProperties: false,
  required: ['name', 'schema'],
  properties: { name: NAME, description: DESCRIPTION, schema: SCHEMA, example: EXAMPLE },
} as const satisfies JSONSchema;

export type CreateEventTypeBody = FromSchema<typeof CreateEventTypeRequest>;

export const UpdateEventTypeRequest = {
  title: 'UpdateEventTypeRequest',
  description: 'Publishes the schema as the next version; the description is replaced when given.',
  type: 'object',
  additionalProperties: false,
  required: ['schema'],
  properties: {
    description: DESCRIPTION,
    schema: SCHEMA,
    example: { ...EXAMPLE, description: `${EXAMPLE.description} (of this version only)` },
  },
} as const satisfies JSONSchema;

export type UpdateEventTypeBody = FromSchema<typeof UpdateEventTypeRequest>;

const versionProperties = {
  version: { type: 'integer', minimum: 1 },
  schema: { type: 'object' },
  example: { type: ['object', 'null'], description: "The version's example of the data" },
  createdAt: { type: 'string' },
};

export const EventTypeVersion: JsonSchema = {
  title: 'EventTypeVersion',
  type: 'object',
  additionalProperties: false,
  required: Object.keys(versionProperties),
  properties: versionProperties,
};

const eventTypeProperties = {
  name: { type: 'string' },
  description: { type: 'string' },
  builtIn: {
    type: 'boolean',
    description: "true for Switchyard's own events (no schema here, cannot be replaced)",
  },
  version: { type: ['integer', 'null'], description: 'The current version (null: built in)' },
  schema: { type: ['object', 'null'], description: "The current version's schema" },
  example: { type: ['object', 'null'], description: "The current version's example of the data" },
  createdAt: { type: ['string', 'null'] },
  updatedAt: { type: ['string', 'null'] },
  deletedAt: {
    type: ['string', 'null'],
    description: 'Set once deleted: no new events are accepted',
  },
};

export const EventType: JsonSchema = {
  title: 'EventType',
  type: 'object',
  additionalProperties: false,
  required: Object.keys(eventTypeProperties),
  properties: {
    ...eventTypeProperties,
    versions: {
      type: 'array',
      items: EventTypeVersion,
      description: 'Every version, oldest first (reading one type only)',
    },
  },
};

export const EventTypeList: JsonSchema = {
  title: 'EventTypeList',
  type: 'object',
  additionalProperties: false,
  required: ['eventTypes'],
  properties: {
    eventTypes: {
      type: 'array',
      items: EventType,
      description: "The organization's types (not deleted ones), then the built-in events",
    },
  },
};

/** The catalog is an OpenAPI 3.1 document; its webhooks section is checked by OpenAPI tools, not here. */
export const WebhookCatalog: JsonSchema = {
  title: 'WebhookCatalog',
  type: 'object',
  required: ['openapi', 'info', 'webhooks'],
  properties: {
    openapi: { type: 'string', const: '3.1.0' },
    info: { type: 'object' },
    webhooks: {
      type: 'object',
      description:
        'One entry per event (built-in, then the organization’s types): post.requestBody has the body’s JSON Schema and an example',
    },
  },
};

/** Most events of one batch. */
export const MAX_EVENTS_PER_BATCH = 100;

const publishedEventProperties = {
  type: { ...NAME, description: 'An event type of the organization' },
  data: { type: 'object', description: "The event's data, checked against the type's schema" },
  key: {
    type: 'string',
    minLength: 1,
    maxLength: 200,
    description: 'Optional: the entity the event is about (order-1042)',
  },
  id: {
    type: 'string',
    minLength: 1,
    maxLength: 200,
    description: 'Optional: publishing the same id again creates nothing new (generated if absent)',
  },
} as const satisfies Record<string, JSONSchema>;

export const PublishedEvent = {
  title: 'PublishedEvent',
  type: 'object',
  additionalProperties: false,
  required: ['type', 'data'],
  properties: publishedEventProperties,
} as const satisfies JSONSchema;

export type PublishedEventBody = FromSchema<typeof PublishedEvent>;

export const PublishEventsRequest = {
  title: 'PublishEventsRequest',
  description: `One event (type, data, key, id) or a batch: {"events": [...]} with 1 to ${MAX_EVENTS_PER_BATCH} events.`,
  type: 'object',
  additionalProperties: false,
  properties: {
    ...publishedEventProperties,
    events: { type: 'array', minItems: 1, maxItems: MAX_EVENTS_PER_BATCH, items: PublishedEvent },
  },
} as const satisfies JSONSchema;

export type PublishEventsBody = FromSchema<typeof PublishEventsRequest>;

export const PublishedEventId: JsonSchema = {
  title: 'PublishedEventId',
  type: 'object',
  additionalProperties: false,
  required: ['id'],
  properties: { id: { type: 'string' } },
};

export const PublishedEventResults: JsonSchema = {
  title: 'PublishedEventResults',
  description: 'One result per event of a batch, in order',
  type: 'object',
  additionalProperties: false,
  required: ['results'],
  properties: {
    results: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'status'],
        properties: {
          id: { type: 'string' },
          status: {
            type: 'integer',
            enum: [202, 400, 404],
            description: '202 accepted; 400 data failing the schema; 404 unknown type',
          },
          error: {
            type: 'object',
            description:
              'The error body of a single event (code, message, details per JSON pointer)',
          },
        },
      },
    },
  },
};

/** Most recent events of one page. */
export const MAX_EVENTS_PER_PAGE = 200;

export const EventsQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    limit: { type: 'integer', minimum: 1, maximum: MAX_EVENTS_PER_PAGE, default: 50 },
    cursor: {
      type: 'string',
      minLength: 1,
      maxLength: 500,
      description: 'The next of the previous page: the events before it',
    },
    type: {
      ...subscribedEvent,
      description:
        'Only events of this type (order.shipped, invoice_paid), or under a prefix (order.*)',
    },
    key: { type: 'string', minLength: 1, maxLength: 200, description: 'Only events with this key' },
    since: { ...DATE_TIME, description: 'Only events received at or after this time' },
    until: { ...DATE_TIME, description: 'Only events received before this time' },
  },
} as const satisfies JSONSchema;

export type EventsQueryParams = FromSchema<typeof EventsQuery>;

export const RecordedEvent: JsonSchema = {
  title: 'RecordedEvent',
  description:
    'An event the notification service accepted (after its schema check) and fanned out to the webhooks subscribed to it',
  type: 'object',
  additionalProperties: false,
  required: [
    'id',
    'type',
    'key',
    'schemaVersion',
    'data',
    'occurredAt',
    'receivedAt',
    'deliveries',
  ],
  properties: {
    id: { type: 'string', description: "The event's id (the webhook-id of its deliveries)" },
    type: {
      type: 'string',
      description: 'A built-in event (invoice_paid) or a type of the organization',
    },
    key: { type: ['string', 'null'], description: 'The key it was published with' },
    schemaVersion: {
      type: ['integer', 'null'],
      description: "The type's schema version the data conforms to; null for built-in events",
    },
    data: {
      description: "The data as published; a built-in event's own fields (as in its webhook body)",
    },
    occurredAt: { type: 'string', format: 'date-time', description: 'As its producer said' },
    receivedAt: {
      type: 'string',
      format: 'date-time',
      description: 'When the notification service accepted it (the order of the list)',
    },
    deliveries: {
      type: 'integer',
      minimum: 0,
      description: "Deliveries it produced to the organization's webhooks (0: none subscribed)",
    },
  },
};

export const RecordedEventList: JsonSchema = {
  title: 'RecordedEventList',
  description: "The organization's recent events, newest first",
  type: 'object',
  additionalProperties: false,
  required: ['events', 'next'],
  properties: {
    events: { type: 'array', items: RecordedEvent },
    next: {
      type: ['string', 'null'],
      description: 'Pass as cursor for the next page; null on the last',
    },
  },
};
