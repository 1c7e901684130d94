import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import { AppError, WEBHOOK_EVENTS } from '@switchyard/shared';
import { CALLBACK_URL, DATE_TIME, type JsonSchema } from './common';

export { WEBHOOK_EVENTS };
/** Standard Webhooks secrets: whsec_ + base64 of at least 18 bytes. */
const SECRET = {
  type: 'string',
  pattern: '^whsec_[A-Za-z0-9+/]{24,}={0,2}$',
  maxLength: 200,
} as const;
const OVERLAP_SECONDS = {
  type: 'integer',
  minimum: 0,
  maximum: 604800,
  description: 'Seconds during which the previous secret still signs (both signatures are sent)',
} as const;
/** Checked in full by the notification service (paths, operators, values), which names the problem. */
const FILTER = {
  type: 'object',
  maxProperties: 20,
  description:
    'Only events whose body matches every condition are delivered: {"<dotted path>": <value> | {"$in": [values]}}, ' +
    'e.g. {"data.country": {"$in": ["DE", "AT"]}}; values are strings, numbers, booleans or null',
} as const;
const RATE_LIMIT = {
  type: 'integer',
  minimum: 1,
  maximum: 10000,
  description:
    'Deliveries per second at most to this webhook, counted across every notification replica; ' +
    'deliveries over it wait their turn (none: as fast as the endpoint takes them)',
} as const;
/**
 * What a webhook can subscribe to: a built-in event, one of the organization's event types
 * (dotted: order.shipped) or a prefix of them (order.*); the notification service checks the
 * types exist.
 */
export const subscribedEvent = {
  type: 'string',
  maxLength: 100,
  pattern: `^(${WEBHOOK_EVENTS.join('|')}|[a-z][a-z0-9_]*(\\.[a-z][a-z0-9_]*)*\\.([a-z][a-z0-9_]*|\\*))$`,
  description:
    'A built-in event, an event type of the organization (order.shipped) or a prefix of them (order.*)',
} as const;

/** One registration, one URL and secret, for one event (`event`) or several (`events`): exactly one of the two. */
export const RegisterWebhookRequest = {
  title: 'RegisterWebhookRequest',
  description: 'Give exactly one of event (one event) and events (one or more events).',
  type: 'object',
  additionalProperties: false,
  required: ['url'],
  properties: {
    event: subscribedEvent,
    events: { type: 'array', minItems: 1, uniqueItems: true, items: subscribedEvent },
    url: CALLBACK_URL,
    secret: { ...SECRET, description: 'Generated when absent' },
    filter: FILTER,
    rateLimit: RATE_LIMIT,
  },
} as const satisfies JSONSchema;

export type RegisterWebhookBody = FromSchema<typeof RegisterWebhookRequest>;

/** The events of a registration body: event or events, exactly one of them. */
export function registeredEvents(body: RegisterWebhookBody): string[] {
  if (body.event !== undefined && body.events !== undefined)
    throw AppError.invalid('give either event or events, not both', '/events');
  if (body.events !== undefined) return body.events;
  if (body.event !== undefined) return [body.event];
  throw AppError.invalid('event or events is required', '/event', 'required');
}

export const UpdateWebhookRequest = {
  title: 'UpdateWebhookRequest',
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: {
    url: CALLBACK_URL,
    events: { type: 'array', minItems: 1, uniqueItems: true, items: subscribedEvent },
    enabled: { type: 'boolean' },
    filter: { ...FILTER, description: `${FILTER.description}; {} removes it` },
    rateLimit: {
      type: ['integer', 'null'],
      minimum: 1,
      maximum: 10000,
      description: `${RATE_LIMIT.description}; null removes it`,
    },
  },
} as const satisfies JSONSchema;

export type UpdateWebhookBody = FromSchema<typeof UpdateWebhookRequest>;

export const RotateSecretRequest = {
  title: 'RotateSecretRequest',
  type: 'object',
  additionalProperties: false,
  properties: { overlapSeconds: OVERLAP_SECONDS },
} as const satisfies JSONSchema;

export type RotateSecretBody = FromSchema<typeof RotateSecretRequest>;

const DELIVERY_STATES = ['pending', 'failing', 'succeeded', 'failed', 'cancelled'] as const;
const DELIVERY_STATE = {
  type: 'string',
  enum: DELIVERY_STATES,
  description:
    'pending: not attempted yet; failing: an attempt failed and a retry is scheduled; succeeded; ' +
    'failed: no retry left; cancelled: its retries were cancelled (status failed)',
} as const;

export const ListDeliveriesQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
    status: {
      type: 'string',
      enum: ['pending', 'succeeded', 'failed'],
      description: 'Only deliveries in this state',
    },
    event: { ...subscribedEvent, description: 'Only deliveries of this event type' },
    eventId: {
      type: 'string',
      minLength: 1,
      maxLength: 200,
      description: 'Only the deliveries of this one event (its id, as in the body and webhook-id)',
    },
    state: {
      ...DELIVERY_STATE,
      description: `Only deliveries in this state (${DELIVERY_STATE.description})`,
    },
    since: { ...DATE_TIME, description: 'Only deliveries created at or after this time' },
    until: { ...DATE_TIME, description: 'Only deliveries created before this time' },
  },
} as const satisfies JSONSchema;

export type DeliveriesQuery = FromSchema<typeof ListDeliveriesQuery>;

export const DeliveryStatsQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    since: {
      ...DATE_TIME,
      description: 'Deliveries created at or after this time (default: 7 days ago)',
    },
    until: { ...DATE_TIME, description: 'Deliveries created before this time (default: now)' },
  },
} as const satisfies JSONSchema;

export type DeliveryStatsQuery = FromSchema<typeof DeliveryStatsQuery>;

const count = { type: 'integer', minimum: 0 } as const;

export const DeliveryStats: JsonSchema = {
  title: 'DeliveryStats',
  description: "A webhook's deliveries created in [since, until), by state",
  type: 'object',
  additionalProperties: false,
  required: [
    'since',
    'until',
    'pending',
    'failing',
    'succeeded',
    'failed',
    'cancelled',
    'successRate',
  ],
  properties: {
    since: DATE_TIME,
    until: DATE_TIME,
    pending: count,
    failing: count,
    succeeded: count,
    failed: count,
    cancelled: count,
    successRate: {
      type: ['number', 'null'],
      description:
        'succeeded / (succeeded + failing + failed): the share of attempted deliveries that got ' +
        'through (cancelled and not yet attempted ones left out); null when there are none',
    },
  },
};

export const ReplayDeliveriesRequest = {
  title: 'ReplayDeliveriesRequest',
  type: 'object',
  additionalProperties: false,
  required: ['deliveryIds'],
  properties: {
    deliveryIds: {
      type: 'array',
      minItems: 1,
      maxItems: 50,
      uniqueItems: true,
      items: { type: 'string', minLength: 1, maxLength: 200 },
    },
  },
} as const satisfies JSONSchema;

export type ReplayDeliveriesBody = FromSchema<typeof ReplayDeliveriesRequest>;

export const RecoverRequest = {
  title: 'RecoverRequest',
  type: 'object',
  additionalProperties: false,
  required: ['since'],
  properties: {
    since: {
      type: 'string',
      format: 'date-time',
      description:
        'Messages whose newest delivery created at or after this time failed are sent again',
    },
  },
} as const satisfies JSONSchema;

export type RecoverBody = FromSchema<typeof RecoverRequest>;

export const Recovered: JsonSchema = {
  title: 'Recovered',
  type: 'object',
  additionalProperties: false,
  required: ['recovered'],
  properties: {
    recovered: {
      type: 'integer',
      description: 'How many failed deliveries were sent again (each as a new delivery)',
    },
  },
};

export const SendTestEventRequest = {
  title: 'SendTestEventRequest',
  type: 'object',
  additionalProperties: false,
  properties: {
    event: {
      type: 'string',
      maxLength: 100,
      pattern: `^(${WEBHOOK_EVENTS.join('|')}|[a-z][a-z0-9_]*(\\.[a-z][a-z0-9_]*)+)$`,
      description:
        "One of the webhook's events, or a type of one of its prefixes (default: its first); a type sends its example",
    },
  },
} as const satisfies JSONSchema;

export type SendTestEventBody = FromSchema<typeof SendTestEventRequest>;

const webhookProperties = {
  id: { type: 'string' },
  event: { type: 'string', description: 'The first registered event' },
  events: { type: 'array', items: { type: 'string' } },
  url: { type: 'string' },
  enabled: { type: 'boolean' },
  createdAt: { type: 'string' },
  updatedAt: { type: 'string' },
  disabledReason: { type: ['string', 'null'] },
  filter: { type: 'object', description: 'The payload filter, when the webhook has one' },
  failingSince: {
    type: ['string', 'null'],
    description: 'Time of the first failed attempt since the last success; null while it succeeds',
  },
  rateLimit: {
    type: ['integer', 'null'],
    description: 'Deliveries per second at most; null: no limit',
  },
};
const webhookRequired = [
  'id',
  'event',
  'events',
  'url',
  'enabled',
  'createdAt',
  'updatedAt',
  'disabledReason',
  'failingSince',
  'rateLimit',
];

export const Webhook: JsonSchema = {
  title: 'Webhook',
  type: 'object',
  additionalProperties: false,
  required: webhookRequired,
  properties: webhookProperties,
};

export const RegisteredWebhook: JsonSchema = {
  title: 'RegisteredWebhook',
  description: 'The webhook plus its signing secret, shown only in this response',
  type: 'object',
  additionalProperties: false,
  required: [...webhookRequired, 'secret'],
  properties: { ...webhookProperties, secret: { type: 'string' } },
};

export const WebhookList: JsonSchema = {
  title: 'WebhookList',
  type: 'object',
  additionalProperties: false,
  required: ['webhooks'],
  properties: { webhooks: { type: 'array', items: Webhook } },
};

export const RotatedSecret: JsonSchema = {
  title: 'RotatedSecret',
  type: 'object',
  additionalProperties: false,
  required: ['secret', 'previousSecretExpiresAt'],
  properties: { secret: { type: 'string' }, previousSecretExpiresAt: { type: ['string', 'null'] } },
};

export const SigningSecret: JsonSchema = {
  title: 'SigningSecret',
  type: 'object',
  additionalProperties: false,
  required: ['secret', 'createdAt'],
  properties: { secret: { type: 'string' }, createdAt: { type: 'string' } },
};

export const Delivery: JsonSchema = {
  title: 'Delivery',
  type: 'object',
  additionalProperties: false,
  required: [
    'id',
    'webhookId',
    'eventId',
    'event',
    'status',
    'url',
    'createdAt',
    'nextAttemptAt',
    'attempts',
    'state',
    'cancelledAt',
    'payload',
  ],
  properties: {
    id: { type: 'string' },
    webhookId: { type: 'string' },
    eventId: { type: 'string' },
    event: { type: 'string' },
    status: { type: 'string', enum: ['pending', 'succeeded', 'failed'] },
    state: DELIVERY_STATE,
    cancelledAt: { type: ['string', 'null'], description: 'When its retries were cancelled' },
    payload: { type: 'string', description: 'The body sent on every attempt, exactly as signed' },
    url: { type: 'string' },
    createdAt: { type: 'string' },
    nextAttemptAt: { type: ['string', 'null'] },
    attempts: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['attemptedAt', 'statusCode', 'durationMs', 'responseBody', 'error'],
        properties: {
          attemptedAt: { type: 'string' },
          statusCode: {
            type: ['integer', 'null'],
            description: 'null when no HTTP response arrived',
          },
          durationMs: { type: 'integer' },
          responseBody: { type: 'string' },
          error: { type: ['string', 'null'] },
        },
      },
    },
  },
};

export const DeliveryList: JsonSchema = {
  title: 'DeliveryList',
  type: 'object',
  additionalProperties: false,
  required: ['deliveries'],
  properties: { deliveries: { type: 'array', items: Delivery } },
};

export const ReplayedDeliveries: JsonSchema = {
  title: 'ReplayedDeliveries',
  type: 'object',
  additionalProperties: false,
  required: ['deliveries', 'failed'],
  properties: {
    deliveries: { type: 'array', items: Delivery, description: 'The new deliveries, in order' },
    failed: {
      type: 'array',
      description: 'The ids that were not replayed, each with its error',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['deliveryId', 'error'],
        properties: {
          deliveryId: { type: 'string' },
          error: {
            type: 'object',
            additionalProperties: false,
            required: ['code', 'message'],
            properties: { code: { type: 'string' }, message: { type: 'string' } },
          },
        },
      },
    },
  },
};
