import type { EventTypeRecord } from '../store/event-types/port';
import { BUILT_IN, type BuiltInEvent } from './built-in';

/** The example event's id and time in the catalog (an example, not an event that happened). */
const EXAMPLE_ID = 'evt_example';
const EXAMPLE_TIME = '2026-01-01T00:00:00.000Z';

/** The headers every delivery carries (Standard Webhooks). */
const SIGNATURE_HEADERS = [
  ['webhook-id', 'The message id: the same on every retry and replay of one event (dedupe by it)'],
  ['webhook-timestamp', 'Unix seconds when this attempt was signed'],
  ['webhook-signature', 'v1,<base64 HMAC-SHA256 of "id.timestamp.body">, one per active secret'],
].map(([name, description]) => ({
  name,
  in: 'header',
  required: true,
  description,
  schema: { type: 'string' },
}));

/**
 * The organization's webhook catalog: an OpenAPI 3.1 document whose `webhooks` section has every
 * event a webhook can subscribe to (the built-in ones, then the organization's types that are
 * not deleted), each with the JSON Schema of the body it receives and, when known, an example.
 * A type's data schema is a component of its own (its internal $refs rewritten to point into it),
 * so every $ref resolves within the document.
 */
export function webhookCatalog(organization: string, types: EventTypeRecord[]): object {
  const webhooks: Record<string, object> = {};
  const schemas: Record<string, object> = {};
  for (const [name, event] of Object.entries(BUILT_IN))
    webhooks[name] = operation(
      name,
      event.description,
      'built-in events',
      ...builtIn(name, event, organization),
    );
  for (const type of types
    .filter((t) => !t.deletedAt)
    .sort((a, b) => a.name.localeCompare(b.name))) {
    schemas[type.name] = withinComponent(
      type.name,
      type.versions[type.versions.length - 1]!.schema,
    );
    webhooks[type.name] = operation(
      type.name,
      type.description,
      'event types',
      ...domain(type, organization),
    );
  }
  return {
    openapi: '3.1.0',
    info: {
      title: `Switchyard webhooks of ${organization}`,
      version: latestChange(types),
      description:
        'The events a webhook of this organization can receive: each is POSTed as JSON, signed the ' +
        'Standard Webhooks way (see docs/webhooks.md), and retried until the receiver answers 2xx.',
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    servers: [{ url: '/', description: 'The webhook URLs each organization registers' }],
    tags: [
      { name: 'built-in events', description: "Switchyard's own events" },
      { name: 'event types', description: 'The organization’s own event types' },
    ],
    webhooks,
    ...(Object.keys(schemas).length > 0 && { components: { schemas } }),
  };
}

/**
 * A type's schema as the component `name`: without $schema and $id (the document's dialect and
 * base apply), each internal $ref ("#/$defs/x") made to point into the component.
 */
function withinComponent(name: string, schema: object): object {
  const base = `#/components/schemas/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`;
  const rewrite = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(rewrite);
    if (typeof node !== 'object' || node === null) return node;
    return Object.fromEntries(
      Object.entries(node).map(([key, value]) => [
        key,
        (key === '$ref' || key === '$dynamicRef') &&
        typeof value === 'string' &&
        value.startsWith('#')
          ? `${base}${value.slice(1)}`
          : rewrite(value),
      ]),
    );
  };
  const { $schema: _dialect, $id: _id, ...rest } = schema as Record<string, unknown>;
  return rewrite(rest) as object;
}

function builtIn(
  name: string,
  event: BuiltInEvent,
  organization: string,
): [schema: object, example: object] {
  const withOrganization = event.withOrganization !== false;
  const schema = {
    type: 'object',
    required: [
      'event',
      ...(withOrganization ? ['organization'] : []),
      'id',
      'occurredAt',
      ...event.required,
    ],
    properties: {
      event: { const: name },
      ...(withOrganization && { organization: { type: 'string' } }),
      id: { type: 'string', description: 'The event id (also the webhook-id of its deliveries)' },
      occurredAt: { type: 'string', format: 'date-time' },
      ...event.fields,
    },
  };
  const example = {
    event: name,
    ...(withOrganization && { organization }),
    ...event.example,
    id: EXAMPLE_ID,
    occurredAt: EXAMPLE_TIME,
  };
  return [schema, example];
}

function domain(type: EventTypeRecord, organization: string): [schema: object, example?: object] {
  const current = type.versions[type.versions.length - 1]!;
  const schema = {
    type: 'object',
    required: ['event', 'organization', 'id', 'occurredAt', 'schemaVersion', 'key', 'data'],
    properties: {
      event: { const: type.name },
      organization: { type: 'string' },
      id: { type: 'string', description: 'The event id (also the webhook-id of its deliveries)' },
      occurredAt: { type: 'string', format: 'date-time' },
      schemaVersion: {
        type: 'integer',
        minimum: 1,
        description: `The version the data was checked against (${current.version} now)`,
      },
      key: { type: ['string', 'null'], description: 'The entity the event is about, if given' },
      data: { $ref: `#/components/schemas/${type.name}` },
    },
  };
  if (current.example === undefined) return [schema];
  const example = {
    event: type.name,
    organization,
    id: EXAMPLE_ID,
    occurredAt: EXAMPLE_TIME,
    schemaVersion: current.version,
    key: null,
    data: current.example,
  };
  return [schema, example];
}

function operation(
  name: string,
  description: string,
  tag: string,
  schema: object,
  example?: object,
): object {
  return {
    post: {
      operationId: name,
      summary: description || name,
      tags: [tag],
      // The receiver checks the signature headers; no other credential is sent.
      security: [],
      parameters: SIGNATURE_HEADERS,
      requestBody: {
        required: true,
        content: { 'application/json': { schema, ...(example && { example }) } },
      },
      responses: {
        '200': { description: 'Received (any 2xx); any other answer, or none in time, is retried' },
      },
    },
  };
}

/** The catalog's version: when a type last changed (built-in ones change with releases). */
function latestChange(types: EventTypeRecord[]): string {
  return types.reduce((latest, t) => (t.updatedAt > latest ? t.updatedAt : latest), '1');
}
