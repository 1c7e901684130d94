import { AppError, type CallContext } from '@switchyard/shared';
import type {
  CreateEventTypeRequest__Output,
  DeleteEventTypeRequest__Output,
  EventCatalog,
  EventType,
  GetEventTypeRequest__Output,
  ListEventTypesResponse,
  UpdateEventTypeRequest__Output,
} from '@switchyard/shared/proto/notification/v1';
import { webhookCatalog } from '../event-types/catalog';
import { BUILT_IN_EVENTS, checkedEventTypeName } from '../event-types/names';
import type { EventTypeRecord, EventTypeVersionRecord } from '../store/event-types/port';
import { organizationOf } from './common';
import type { HandlerDeps } from './deps';

const MAX_DESCRIPTION = 1000;
/** Versions kept per type: each is compiled on first use and kept readable. */
const MAX_VERSIONS = 100;

/** Registers one of the organization's own event types with its first schema version. */
export async function createEventType(
  deps: HandlerDeps,
  request: CreateEventTypeRequest__Output,
  context: CallContext,
): Promise<EventType> {
  const organization = organizationOf(context);
  const name = checkedEventTypeName(request.name);
  const schema = deps.eventSchemas.parse(request.schema_json);
  const example = deps.eventSchemas.example(schema, request.example_json);
  const now = nowOf(deps);
  const record: EventTypeRecord = {
    organization,
    name,
    description: checkedDescription(request.description),
    versions: [{ version: 1, schema, ...(example && { example }), createdAt: now }],
    createdAt: now,
    updatedAt: now,
  };
  if (!(await deps.stores.eventTypes.create(record)))
    throw new AppError('conflict', `event type ${name} exists (names are not reused once deleted)`);
  return toEventType(record, true);
}

/** The organization's webhook catalog: an OpenAPI 3.1 document of every event it can receive. */
export async function getEventCatalog(
  deps: HandlerDeps,
  _request: unknown,
  context: CallContext,
): Promise<EventCatalog> {
  const organization = organizationOf(context);
  const types = await deps.stores.eventTypes.list(organization);
  return { openapi_json: JSON.stringify(webhookCatalog(organization, types)) };
}

/** The organization's event types (deleted ones left out), then the built-in events. */
export async function listEventTypes(
  deps: HandlerDeps,
  _request: unknown,
  context: CallContext,
): Promise<ListEventTypesResponse> {
  const own = await deps.stores.eventTypes.list(organizationOf(context));
  return {
    event_types: [
      ...own.filter((t) => !t.deletedAt).map((t) => toEventType(t, false)),
      ...Object.entries(BUILT_IN_EVENTS).map(([name, description]) => builtIn(name, description)),
    ],
  };
}

/** One type with every version (deleted types stay readable); built-in events too. */
export async function getEventType(
  deps: HandlerDeps,
  request: GetEventTypeRequest__Output,
  context: CallContext,
): Promise<EventType> {
  const description = BUILT_IN_EVENTS[request.name as keyof typeof BUILT_IN_EVENTS];
  if (description) return builtIn(request.name, description);
  return toEventType(await findEventType(deps, organizationOf(context), request.name), true);
}

/** Publishes a new schema version (any valid schema: see docs/webhooks.md); earlier ones stay readable. */
export async function updateEventType(
  deps: HandlerDeps,
  request: UpdateEventTypeRequest__Output,
  context: CallContext,
): Promise<EventType> {
  const organization = organizationOf(context);
  const current = await findEventType(deps, organization, request.name);
  if (current.deletedAt)
    throw new AppError(
      'conflict',
      `event type ${current.name} is deleted; it takes no new version`,
    );
  if (current.versions.length >= MAX_VERSIONS)
    throw new AppError(
      'conflict',
      `event type ${current.name} has ${MAX_VERSIONS} versions, the most kept`,
    );
  const schema = deps.eventSchemas.parse(request.schema_json);
  const example = deps.eventSchemas.example(schema, request.example_json);
  const description =
    request.description === undefined ? undefined : checkedDescription(request.description);
  const updated = await deps.stores.eventTypes.addVersion(
    organization,
    current.name,
    {
      version: current.versions.length + 1,
      schema,
      ...(example && { example }),
      createdAt: nowOf(deps),
    },
    description,
  );
  if (!updated)
    throw new AppError(
      'conflict',
      `event type ${current.name} changed meanwhile; read it and retry`,
    );
  return toEventType(updated, true);
}

/** Stops new events of the type; the type and its versions stay readable. */
export async function deleteEventType(
  deps: HandlerDeps,
  request: DeleteEventTypeRequest__Output,
  context: CallContext,
): Promise<EventType> {
  const organization = organizationOf(context);
  if (request.name in BUILT_IN_EVENTS)
    throw new AppError('conflict', `${request.name} is a built-in event and cannot be deleted`);
  const deleted = await deps.stores.eventTypes.markDeleted(organization, request.name, nowOf(deps));
  if (!deleted) throw AppError.notFound(`event type ${request.name} not found`);
  return toEventType(deleted, false);
}

async function findEventType(
  deps: HandlerDeps,
  organization: string,
  name: string,
): Promise<EventTypeRecord> {
  const found = name ? await deps.stores.eventTypes.get(organization, name) : undefined;
  if (!found) throw AppError.notFound(`event type ${name} not found`);
  return found;
}

function checkedDescription(description: string): string {
  if (description.length > MAX_DESCRIPTION) {
    throw AppError.invalid(
      `description is over ${MAX_DESCRIPTION} characters`,
      '/description',
      'too long',
    );
  }
  return description;
}

function nowOf(deps: HandlerDeps): string {
  return (deps.clock?.() ?? new Date()).toISOString();
}

function toEventType(record: EventTypeRecord, withVersions: boolean): EventType {
  const current = record.versions[record.versions.length - 1]!;
  return {
    name: record.name,
    description: record.description,
    built_in: false,
    version: current.version,
    schema_json: JSON.stringify(current.schema),
    example_json: exampleJson(current),
    versions: withVersions
      ? record.versions.map((v) => ({
          version: v.version,
          schema_json: JSON.stringify(v.schema),
          example_json: exampleJson(v),
          created_at: v.createdAt,
        }))
      : [],
    created_at: record.createdAt,
    updated_at: record.updatedAt,
    deleted_at: record.deletedAt ?? '',
  };
}

function exampleJson(version: EventTypeVersionRecord): string {
  return version.example === undefined ? '' : JSON.stringify(version.example);
}

function builtIn(name: string, description: string): EventType {
  return { name, description, built_in: true, version: 0, schema_json: '', versions: [] };
}
