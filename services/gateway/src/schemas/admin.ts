import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import type { Agree, SameFields } from '@switchyard/shared/contracts';
import type { KeyChanges, KeyScope } from '../store/api-keys/port';
import { MAX_CACHE_AGE_SECONDS } from '../cache/cache-control';
import type { NewOrganization } from '../accounts/accounts';
import type { OrganizationSettings } from '../accounts/organization';
import { DATE_TIME, NON_BLANK, ORGANIZATION_ID, type JsonSchema } from './common';

const KEY_NAME = { type: 'string', maxLength: 100, description: 'A label, e.g. "ci"' } as const;

/** A limit per period: tokens, cost, or both (at least one). */
export const Budget = {
  title: 'Budget',
  type: 'object',
  additionalProperties: false,
  required: ['period'],
  anyOf: [{ required: ['tokens'] }, { required: ['cost'] }],
  properties: {
    tokens: {
      type: 'integer',
      minimum: 1,
      maximum: Number.MAX_SAFE_INTEGER,
      description: 'Tokens (input + output) the calls may use in one period',
    },
    cost: {
      type: 'number',
      exclusiveMinimum: 0,
      maximum: 1e9,
      description:
        "What the calls may cost in one period, in the model prices' currency (GET /api/v2/models), counted to 0.000001",
    },
    period: {
      enum: ['day', 'week', 'month'],
      description: 'A UTC day, an ISO week (Monday to Sunday, UTC) or a UTC month',
    },
  },
} as const satisfies JSONSchema;

/** A key's response cache (see docs/api.md, "Response cache"). */
export const KeyCacheSettings = {
  title: 'KeyCache',
  type: 'object',
  additionalProperties: false,
  required: ['maxAgeSeconds'],
  properties: {
    maxAgeSeconds: {
      type: 'integer',
      minimum: 1,
      maximum: MAX_CACHE_AGE_SECONDS,
      description:
        "How long an answer of this key's calls is replayed to an equal request; a request's `Cache-Control: max-age` overrides it, `no-store` skips the cache",
    },
    semanticThreshold: {
      type: 'number',
      minimum: 0.5,
      maximum: 1,
      description:
        "The semantic form: a request whose text (a chat's last user message, generate's prompt) is at least this similar (cosine of the local embeddings model's vectors) to a stored request's, all else equal, gets its answer. Absent: exact matches only",
    },
  },
} as const satisfies JSONSchema;

/** A key's scopes: each absent means no restriction. */
const keyScopeProperties = {
  models: {
    type: 'array',
    minItems: 1,
    maxItems: 100,
    uniqueItems: true,
    items: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._:/-]*$', maxLength: 128 },
    description:
      'Model ids or aliases the key may call (GET /api/v2/models); any other model, the default included, is 403 model_not_allowed',
  },
  routes: {
    type: 'array',
    minItems: 1,
    maxItems: 50,
    uniqueItems: true,
    items: { type: 'string', pattern: '^/[\\x21-\\x7e]*$', maxLength: 200 },
    description:
      'Paths the key may call, `*` matching any characters (e.g. "/v1/*"); any other path is 403 forbidden',
  },
  expiresAt: {
    ...DATE_TIME,
    description: 'From this instant on the key is refused with 401 key_expired',
  },
  teamId: {
    type: 'string',
    minLength: 1,
    maxLength: 64,
    description: "The team the key belongs to (GET /api/v2/teams): the team's budget applies too",
  },
  budget: {
    ...Budget,
    description: "The key's own budget: a call that would pass it is 429 budget_exceeded",
  },
  endUserBudget: {
    ...Budget,
    description:
      'A budget for each end user of the key, told apart by `user` (/v1) or `user_id` (assistants)',
  },
  cache: {
    ...KeyCacheSettings,
    description:
      "Caches the answers of this key's model calls (chat completions, generate): an equal request within maxAgeSeconds is answered from the cache, with no model call and not billed",
  },
} as const satisfies Record<string, JSONSchema>;

const POSITIVE_INTEGER = { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER } as const;

const settingsProperties = {
  name: { ...NON_BLANK, maxLength: 200 },
  monthlyTokenQuota: { ...POSITIVE_INTEGER, description: 'Tokens (input + output) per UTC month' },
  thresholdShares: {
    type: 'array',
    minItems: 1,
    maxItems: 10,
    items: { type: 'number', exclusiveMinimum: 0, maximum: 10 },
    description: 'Shares of the quota that send usage_threshold (default [0.9, 1.0])',
  },
  hardQuota: {
    type: 'boolean',
    description: 'true (default): calls over the quota get 429 quota_exceeded; false: notify only',
  },
  rateLimits: {
    type: 'object',
    additionalProperties: false,
    properties: { requestsPerMinute: POSITIVE_INTEGER, tokensPerMinute: POSITIVE_INTEGER },
    description: 'Per API key; defaults from DEFAULT_RPM and DEFAULT_TPM',
  },
  timeZone: {
    type: 'string',
    minLength: 1,
    maxLength: 64,
    description:
      'IANA time zone (e.g. Europe/Berlin) in which assistants read dates in users\' words ("this weekend", "next Friday"); default UTC',
  },
  cacheHitsBilled: {
    type: 'boolean',
    description:
      'true: a response cache hit is billed as the call that made its answer (usage recorded; still no model call); false (default): hits are free, counted apart in the usage report',
  },
} as const satisfies Record<string, JSONSchema>;

export const CreateOrganizationRequest = {
  title: 'CreateOrganizationRequest',
  type: 'object',
  additionalProperties: false,
  required: ['id', 'name', 'monthlyTokenQuota'],
  properties: {
    id: ORGANIZATION_ID,
    ...settingsProperties,
  },
} as const satisfies JSONSchema;

export type CreateOrganizationBody = FromSchema<typeof CreateOrganizationRequest>;
/** The stored settings are the fields the schema admits, no more and no fewer. */
export type CreateOrganizationAgrees = Agree<SameFields<CreateOrganizationBody, NewOrganization>>;

export const UpdateOrganizationRequest = {
  title: 'UpdateOrganizationRequest',
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: settingsProperties,
} as const satisfies JSONSchema;

export type UpdateOrganizationBody = FromSchema<typeof UpdateOrganizationRequest>;
export type UpdateOrganizationAgrees = Agree<
  SameFields<UpdateOrganizationBody, OrganizationSettings>
>;

export const Organization: JsonSchema = {
  title: 'Organization',
  type: 'object',
  additionalProperties: false,
  required: [
    'id',
    'name',
    'monthlyTokenQuota',
    'thresholdShares',
    'hardQuota',
    'rateLimits',
    'createdAt',
  ],
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    monthlyTokenQuota: { type: 'integer' },
    thresholdShares: { type: 'array', items: { type: 'number' } },
    hardQuota: { type: 'boolean' },
    rateLimits: {
      type: 'object',
      additionalProperties: false,
      required: ['requestsPerMinute', 'tokensPerMinute'],
      properties: { requestsPerMinute: { type: 'integer' }, tokensPerMinute: { type: 'integer' } },
    },
    timeZone: { type: 'string', description: "IANA time zone of dates in users' words" },
    cacheHitsBilled: { type: 'boolean', description: 'Response cache hits are billed' },
    createdAt: DATE_TIME,
  },
};

export const OrganizationList: JsonSchema = {
  title: 'OrganizationList',
  type: 'object',
  additionalProperties: false,
  required: ['organizations'],
  properties: { organizations: { type: 'array', items: Organization } },
};

export const IssueKeyRequest = {
  title: 'IssueKeyRequest',
  type: 'object',
  additionalProperties: false,
  properties: { name: KEY_NAME, ...keyScopeProperties },
} as const satisfies JSONSchema;

export type IssueKeyBody = FromSchema<typeof IssueKeyRequest>;
/** A key's stored scope has the fields a key is issued with (an update takes the same, or null). */
export type IssueKeyAgrees = Agree<SameFields<IssueKeyBody, KeyScope & { name?: string }>>;

type OrNull<S extends { type: string }> = Omit<S, 'type'> & { type: readonly [S['type'], 'null'] };

/** Each property's schema, or null (an update removing the field). */
function orNull<const P extends Record<string, { type: string }>>(
  properties: P,
): { [F in keyof P]: OrNull<P[F]> } {
  const schemas: Record<string, unknown> = Object.fromEntries(
    Object.entries(properties).map(([field, schema]) => [
      field,
      { ...schema, type: [schema.type, 'null'] },
    ]),
  );
  return schemas as { [F in keyof P]: OrNull<P[F]> };
}

/** Each field given is set; null removes a scope. */
export const UpdateKeyRequest = {
  title: 'UpdateKeyRequest',
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: { name: KEY_NAME, ...orNull(keyScopeProperties) },
} as const satisfies JSONSchema;

export type UpdateKeyBody = FromSchema<typeof UpdateKeyRequest>;
/** A key's changes are its scope's fields and its name, each of which may be null. */
export type UpdateKeyAgrees = Agree<SameFields<UpdateKeyBody, KeyChanges>>;

export const RotateKeyRequest = {
  title: 'RotateKeyRequest',
  type: 'object',
  additionalProperties: false,
  properties: {
    gracePeriodSeconds: {
      type: 'integer',
      minimum: 0,
      maximum: 30 * 24 * 3600,
      default: 0,
      description: 'How long the old key keeps working',
    },
  },
} as const satisfies JSONSchema;

export type RotateKeyBody = FromSchema<typeof RotateKeyRequest>;

export const EmptyRequest: JsonSchema = {
  title: 'EmptyRequest',
  type: 'object',
  additionalProperties: false,
  properties: {},
};

const keyProperties = {
  keyId: { type: 'string' },
  organization: { type: 'string' },
  name: { type: 'string' },
  createdAt: DATE_TIME,
  revokedAt: {
    type: ['string', 'null'],
    description: 'From this instant on the key is refused (may lie in the future after a rotation)',
  },
};

const KEY_REQUIRED = Object.keys(keyProperties);
const keyViewProperties = { ...keyProperties, ...keyScopeProperties };

export const ApiKey: JsonSchema = {
  title: 'ApiKey',
  type: 'object',
  additionalProperties: false,
  required: KEY_REQUIRED,
  properties: keyViewProperties,
};

export const ApiKeyList: JsonSchema = {
  title: 'ApiKeyList',
  type: 'object',
  additionalProperties: false,
  required: ['keys'],
  properties: { keys: { type: 'array', items: ApiKey } },
};

export const IssuedApiKey: JsonSchema = {
  title: 'IssuedApiKey',
  type: 'object',
  additionalProperties: false,
  required: [...KEY_REQUIRED, 'key'],
  properties: {
    ...keyViewProperties,
    key: { type: 'string', description: 'The key (sk_...), shown only in this response' },
  },
};

export const RotatedApiKey: JsonSchema = {
  title: 'RotatedApiKey',
  type: 'object',
  additionalProperties: false,
  required: [...KEY_REQUIRED, 'key', 'replacedKeyId', 'replacedKeyRevokedAt'],
  properties: {
    ...keyViewProperties,
    key: { type: 'string', description: 'The new key (sk_...), shown only in this response' },
    replacedKeyId: { type: 'string' },
    replacedKeyRevokedAt: DATE_TIME,
  },
};
