import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import type { JsonSchema } from './common';

export const UsageQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    period: {
      type: 'string',
      pattern: '^[0-9]{4}-(0[1-9]|1[0-2])$',
      description: 'YYYY-MM (UTC month); default the current one',
    },
    days: {
      type: 'integer',
      minimum: 1,
      maximum: 90,
      default: 30,
      description: 'Length of the daily series, ending today',
    },
  },
} as const satisfies JSONSchema;

export type UsageQueryParams = FromSchema<typeof UsageQuery>;

const bucket = (key: string): JsonSchema => ({
  type: 'object',
  additionalProperties: false,
  required: [key, 'tokensInput', 'tokensOutput', 'cost', 'calls'],
  properties: {
    [key]: { type: 'string' },
    tokensInput: { type: 'integer' },
    tokensOutput: { type: 'integer' },
    cost: { type: 'number' },
    calls: { type: 'integer' },
  },
});

export const UsageReport: JsonSchema = {
  title: 'UsageReport',
  type: 'object',
  additionalProperties: false,
  required: [
    'organization',
    'period',
    'periodStart',
    'periodEnd',
    'quota',
    'used',
    'remaining',
    'hardQuota',
    'cost',
    'calls',
    'thresholdShares',
    'byModel',
    'byEndpoint',
    'daily',
    'refused',
    'cache',
    'byKey',
    'byTeam',
    'byEndUser',
  ],
  properties: {
    organization: { type: 'string' },
    period: { type: 'string', description: 'YYYY-MM' },
    periodStart: { type: 'string', format: 'date-time' },
    periodEnd: { type: 'string', format: 'date-time' },
    quota: { type: 'integer', description: 'Monthly token quota' },
    used: { type: 'integer', description: 'Tokens (input + output) used in the period' },
    remaining: { type: 'integer' },
    hardQuota: { type: 'boolean' },
    cost: { type: 'number' },
    calls: { type: 'integer' },
    thresholdShares: { type: 'array', items: { type: 'number' } },
    byModel: { type: 'array', items: bucket('model') },
    byKey: {
      type: 'array',
      items: bucket('keyId'),
      description: 'Per API key that made the calls, most tokens first',
    },
    byTeam: {
      type: 'array',
      items: bucket('teamId'),
      description:
        'Per team of the calling keys, most tokens first (keys without a team are in none)',
    },
    byEndUser: {
      type: 'array',
      items: bucket('endUser'),
      description:
        'Per end user named by the calls (`user` on /v1, `user_id` on the assistants), most tokens first',
    },
    byEndpoint: {
      type: 'array',
      items: bucket('endpoint'),
      description:
        'Per path the calls were made on, most tokens first; an assistant under its agent, and `/api/v2/knowledge (embeddings)` for the vectors of knowledge documents and questions',
    },
    daily: { type: 'array', items: bucket('date'), description: 'One entry per day (YYYY-MM-DD)' },
    refused: {
      type: 'object',
      additionalProperties: false,
      required: ['calls', 'byReason', 'daily'],
      description:
        "Calls the gateway refused with 429 before they ran (they used no tokens and are not in `calls`): `quota` (the hard quota), `request_rate` and `token_rate` (a key's rate limits), `budget` (a key's or end user's budget)",
      properties: {
        calls: { type: 'integer', description: 'Refused in the period' },
        byReason: {
          type: 'array',
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['reason', 'calls'],
            properties: { reason: { type: 'string' }, calls: { type: 'integer' } },
          },
        },
        daily: {
          type: 'array',
          description: 'Per day of the period with refusals and reason, oldest first',
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['date', 'reason', 'calls'],
            properties: {
              date: { type: 'string' },
              reason: { type: 'string' },
              calls: { type: 'integer' },
            },
          },
        },
      },
    },
    cache: {
      type: 'object',
      additionalProperties: false,
      required: ['hits', 'tokensSaved'],
      description:
        'Calls the response cache answered (no model call; free unless the organization bills hits, and then also in `calls` and `used`)',
      properties: {
        hits: { type: 'integer', description: 'Cache hits in the period' },
        tokensSaved: {
          type: 'integer',
          description: 'Tokens (input + output) the replayed answers used when first made',
        },
      },
    },
  },
};

export const UsageCallsQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 50 },
    before: {
      type: 'string',
      minLength: 1,
      maxLength: 500,
      description: 'The next of the previous page: the calls before it',
    },
    keyId: {
      type: 'string',
      minLength: 1,
      maxLength: 100,
      description: 'Only the calls of this key',
    },
  },
} as const satisfies JSONSchema;

export type UsageCallsQueryParams = FromSchema<typeof UsageCallsQuery>;

export const UsageCalls: JsonSchema = {
  title: 'UsageCalls',
  description: "The organization's billed calls from the usage ledger, newest first",
  type: 'object',
  additionalProperties: false,
  required: ['calls', 'next'],
  properties: {
    calls: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: [
          'id',
          'time',
          'requestId',
          'keyId',
          'endpoint',
          'model',
          'tokensInput',
          'tokensOutput',
          'cost',
          'outcome',
        ],
        properties: {
          id: { type: 'string', description: 'The usage event id' },
          time: { type: 'string', format: 'date-time' },
          requestId: { type: ['string', 'null'] },
          keyId: {
            type: ['string', 'null'],
            description: 'null for calls recorded before keys were',
          },
          endpoint: { type: 'string', description: 'The path called, as in byEndpoint' },
          model: { type: 'string' },
          tokensInput: { type: 'integer' },
          tokensOutput: { type: 'integer' },
          cost: { type: 'number' },
          outcome: {
            type: ['string', 'null'],
            enum: ['succeeded', 'failed', null],
            description: 'failed: the call failed after tokens were spent upstream',
          },
        },
      },
    },
    next: {
      type: ['string', 'null'],
      description: 'Pass as before for the next page; null on the last',
    },
  },
};
