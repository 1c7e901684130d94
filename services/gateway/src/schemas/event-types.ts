import { EVENT_TYPE_NAME_PATTERN, MAX_EVENT_TYPE_NAME } from '@switchyard/shared';
import type { JsonSchema } from './common';

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

export interface CreateEventTypeBody {
  name: string;
  description?: string;
  schema: object;
}

export const CreateEventTypeRequest: JsonSchema = {
  title: 'CreateEventTypeRequest',
  type: 'object',
  additionalProperties: false,
  required: ['name', 'schema'],
  properties: { name: NAME, description: DESCRIPTION, schema: SCHEMA },
};

export interface UpdateEventTypeBody {
  description?: string;
  schema: object;
}

export const UpdateEventTypeRequest: JsonSchema = {
  title: 'UpdateEventTypeRequest',
  description: 'Publishes the schema as the next version; the description is replaced when given.',
  type: 'object',
  additionalProperties: false,
  required: ['schema'],
  properties: { description: DESCRIPTION, schema: SCHEMA },
};

const versionProperties = {
  version: { type: 'integer', minimum: 1 },
  schema: { type: 'object' },
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
