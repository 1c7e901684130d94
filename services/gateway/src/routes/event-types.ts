import type { EventType__Output } from '@switchyard/shared/proto/notification/v1';
import {
  CreateEventTypeRequest,
  EventType,
  EventTypeList,
  UpdateEventTypeRequest,
  WebhookCatalog,
  type CreateEventTypeBody,
  type UpdateEventTypeBody,
} from '../schemas/event-types';
import { json, type AnyRoute, type RouteSpec } from './types';
import { orNull } from './proto-values';

function eventTypeView(type: EventType__Output, withVersions: boolean) {
  return {
    name: type.name,
    description: type.description,
    builtIn: type.built_in,
    version: type.built_in ? null : type.version,
    schema: type.schema_json ? (JSON.parse(type.schema_json) as object) : null,
    example: type.example_json ? (JSON.parse(type.example_json) as object) : null,
    createdAt: orNull(type.created_at),
    updatedAt: orNull(type.updated_at),
    deletedAt: orNull(type.deleted_at),
    ...(withVersions &&
      !type.built_in && {
        versions: type.versions.map((v) => ({
          version: v.version,
          schema: JSON.parse(v.schema_json) as object,
          example: v.example_json ? (JSON.parse(v.example_json) as object) : null,
          createdAt: v.created_at,
        })),
      }),
  };
}

const typePath = '/api/v2/event-types/:name';
const base = { tag: 'events', auth: true } as const;

const create: RouteSpec<CreateEventTypeBody> = {
  ...base,
  method: 'POST',
  path: '/api/v2/event-types',
  operationId: 'createEventType',
  idempotent: true,
  summary: 'Define an event type of the organization with the JSON Schema of its data',
  description:
    'The schema (JSON Schema 2020-12) is checked when saved: an invalid one is 400 naming the problem. ' +
    'Names are dotted lowercase, unique per organization and never reused; built-in events cannot be replaced (409).',
  requestSchema: CreateEventTypeRequest,
  responses: { 201: { description: 'Created (version 1)', schema: EventType } },
  errors: ['conflict'],
  async handle({ body, call }, deps) {
    const created = await deps.clients.notification.createEventType(
      {
        name: body.name,
        description: body.description ?? '',
        schema_json: JSON.stringify(body.schema),
        example_json: body.example === undefined ? '' : JSON.stringify(body.example),
      },
      call,
    );
    return json(201, eventTypeView(created, true));
  },
};

const list: RouteSpec = {
  ...base,
  method: 'GET',
  path: '/api/v2/event-types',
  operationId: 'listEventTypes',
  summary: "The organization's event types with their current schema, and the built-in events",
  responses: { 200: { description: 'Event types', schema: EventTypeList } },
  async handle({ call }, deps) {
    const { event_types } = await deps.clients.notification.listEventTypes({}, call);
    return json(200, { eventTypes: event_types.map((t) => eventTypeView(t, false)) });
  },
};

const get: RouteSpec = {
  ...base,
  method: 'GET',
  path: typePath,
  operationId: 'getEventType',
  summary: 'One event type with every schema version (deleted types stay readable)',
  responses: { 200: { description: 'The event type', schema: EventType } },
  errors: ['not_found'],
  async handle({ params, call }, deps) {
    const found = await deps.clients.notification.getEventType({ name: params.name }, call);
    return json(200, eventTypeView(found, true));
  },
};

/* Before /:name: "openapi.json" is reserved, never a type's name. */
const catalog: RouteSpec = {
  ...base,
  method: 'GET',
  path: '/api/v2/event-types/openapi.json',
  operationId: 'getWebhookCatalog',
  summary: "The organization's webhook catalog: an OpenAPI 3.1 document with a webhooks section",
  description:
    'Every event a webhook of the organization can receive (the built-in events, then its own types), each with ' +
    'the JSON Schema of the body and an example (a type shows one when it was given one). Feed it to OpenAPI ' +
    'tools to generate receivers or documentation.',
  responses: { 200: { description: 'The catalog', schema: WebhookCatalog } },
  async handle({ call }, deps) {
    const { openapi_json } = await deps.clients.notification.getEventCatalog({}, call);
    return json(200, JSON.parse(openapi_json) as object);
  },
};

const update: RouteSpec<UpdateEventTypeBody> = {
  ...base,
  method: 'PUT',
  path: typePath,
  operationId: 'updateEventType',
  summary: 'Publish a new schema version; earlier versions stay readable',
  description:
    'Any valid JSON Schema 2020-12 may follow: new events are checked against the newest version. ' +
    'A deleted type takes no new version (409).',
  requestSchema: UpdateEventTypeRequest,
  responses: { 200: { description: 'The event type with the new version', schema: EventType } },
  errors: ['not_found', 'conflict'],
  async handle({ params, body, call }, deps) {
    const updated = await deps.clients.notification.updateEventType(
      {
        name: params.name,
        schema_json: JSON.stringify(body.schema),
        example_json: body.example === undefined ? '' : JSON.stringify(body.example),
        description: body.description,
      },
      call,
    );
    return json(200, eventTypeView(updated, true));
  },
};

const remove: RouteSpec = {
  ...base,
  method: 'DELETE',
  path: typePath,
  operationId: 'deleteEventType',
  summary: 'Stop accepting events of the type (it stays readable; its name is not reused)',
  responses: { 204: { description: 'Deleted' } },
  errors: ['not_found', 'conflict'],
  async handle({ params, call }, deps) {
    await deps.clients.notification.deleteEventType({ name: params.name }, call);
    return { status: 204 };
  },
};

export const eventTypeRoutes: AnyRoute[] = [create, list, catalog, get, update, remove];
