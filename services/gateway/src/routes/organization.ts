import {
  ApiKey,
  ApiKeyList,
  EmptyRequest,
  IssuedApiKey,
  IssueKeyRequest,
  Organization,
  type IssueKeyBody,
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
  summary: 'Issue another API key for the organization (the key is in this response only)',
  requestSchema: IssueKeyRequest,
  responses: { 201: { description: 'The new key', schema: IssuedApiKey } },
  handle: async ({ body, call }, deps) =>
    json(201, await deps.accounts.issueKey(call.organization, body.name ?? '')),
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
  handle: async ({ params, call }, deps) =>
    json(200, await deps.accounts.revokeOwnKey(call.organization, params.keyId)),
};

export const organizationRoutes: AnyRoute[] = [
  getOwnOrganization,
  listOwnKeys,
  issueOwnKey,
  revokeOwnKey,
];
