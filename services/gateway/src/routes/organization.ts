import {
  ApiKey,
  ApiKeyList,
  EmptyRequest,
  IssuedApiKey,
  IssueKeyRequest,
  Organization,
  RotatedApiKey,
  RotateKeyRequest,
  UpdateKeyRequest,
  type IssueKeyBody,
  type RotateKeyBody,
  type UpdateKeyBody,
} from '../schemas/admin';
import { json, type AnyRoute, type RouteSpec } from './types';

/**
 * The caller's own organization, for the people who run it (the console): its settings and its
 * keys. The admin routes do the same for any organization behind the admin token.
 */
const base = { tag: 'organization', auth: true } as const;

const getOwnOrganization: RouteSpec = {
  ...base,
  method: 'GET',
  path: '/api/v2/organization',
  operationId: 'getOwnOrganization',
  summary: "The caller's organization: name, monthly quota, usage_threshold shares, rate limits",
  responses: { 200: { description: 'The organization', schema: Organization } },
  handle: async ({ call }, deps) =>
    json(200, await deps.accounts.getOrganization(call.organization)),
};

const listOwnKeys: RouteSpec = {
  ...base,
  method: 'GET',
  path: '/api/v2/keys',
  operationId: 'listOwnKeys',
  summary: "The organization's API keys (ids and metadata; never the keys)",
  responses: { 200: { description: 'Keys, oldest first', schema: ApiKeyList } },
  handle: async ({ call }, deps) =>
    json(200, { keys: await deps.accounts.listKeys(call.organization) }),
};

const issueOwnKey: RouteSpec<IssueKeyBody> = {
  ...base,
  method: 'POST',
  path: '/api/v2/keys',
  operationId: 'issueOwnKey',
  summary:
    'Issue another API key for the organization, with its scopes (the key is in this response only)',
  description:
    "Keys limited to some `models` or `routes` cannot manage keys (403 forbidden): the organization's unrestricted keys do.",
  requestSchema: IssueKeyRequest,
  responses: { 201: { description: 'The new key', schema: IssuedApiKey } },
  errors: ['not_found'],
  handle: async ({ body, call, key }, deps) => {
    deps.accounts.requireManager(key);
    return json(201, await deps.accounts.issueKey(call.organization, body));
  },
};

const updateOwnKey: RouteSpec<UpdateKeyBody> = {
  ...base,
  method: 'PATCH',
  path: '/api/v2/keys/:keyId',
  operationId: 'updateOwnKey',
  summary:
    "Change one of the organization's keys: name, models, routes, expiresAt (null removes one)",
  description:
    'Every replica applies the change within KEY_CACHE_TTL_MS (at once on this one). Keys limited to some `models` or `routes` cannot change keys (403 forbidden).',
  requestSchema: UpdateKeyRequest,
  responses: { 200: { description: 'The key as changed', schema: ApiKey } },
  errors: ['not_found'],
  handle: async ({ params, body, call, key }, deps) => {
    deps.accounts.requireManager(key);
    return json(200, await deps.accounts.updateKey(params.keyId, body, call.organization));
  },
};

const revokeOwnKey: RouteSpec = {
  ...base,
  method: 'POST',
  path: '/api/v2/keys/:keyId/revoke',
  operationId: 'revokeOwnKey',
  summary:
    "Revoke one of the organization's keys now (the calling key too, if named): every replica refuses it within KEY_CACHE_TTL_MS",
  requestSchema: EmptyRequest,
  responses: { 200: { description: 'The revoked key', schema: ApiKey } },
  errors: ['not_found'],
  handle: async ({ params, call, key }, deps) => {
    // A restricted key may still revoke itself (a leaked application key).
    if (params.keyId !== call.keyId) deps.accounts.requireManager(key);
    return json(200, await deps.accounts.revokeOwnKey(call.organization, params.keyId));
  },
};

const rotateOwnKey: RouteSpec<RotateKeyBody> = {
  ...base,
  method: 'POST',
  path: '/api/v2/keys/:keyId/rotate',
  operationId: 'rotateOwnKey',
  summary:
    "Replace one of the organization's keys: a new key with the same name (in this response only); the old one stops working after gracePeriodSeconds",
  requestSchema: RotateKeyRequest,
  responses: { 201: { description: 'The new key', schema: RotatedApiKey } },
  errors: ['not_found', 'conflict'],
  handle: async ({ params, body, call }, deps) =>
    json(
      201,
      await deps.accounts.rotateOwnKey(call.organization, params.keyId, body.gracePeriodSeconds),
    ),
};

export const organizationRoutes: AnyRoute[] = [
  getOwnOrganization,
  listOwnKeys,
  issueOwnKey,
  updateOwnKey,
  revokeOwnKey,
  rotateOwnKey,
];
