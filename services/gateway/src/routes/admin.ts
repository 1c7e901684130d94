import {
  ApiKeyList,
  CreateOrganizationRequest,
  EmptyRequest,
  IssuedApiKey,
  IssueKeyRequest,
  Organization,
  OrganizationList,
  RotatedApiKey,
  RotateKeyRequest,
  UpdateKeyRequest,
  UpdateOrganizationRequest,
  ApiKey,
  type CreateOrganizationBody,
  type IssueKeyBody,
  type RotateKeyBody,
  type UpdateKeyBody,
  type UpdateOrganizationBody,
} from '../schemas/admin';
import { json, type AnyRoute, type RouteSpec } from './types';

/** Admin routes: guarded by ADMIN_TOKEN, not by an API key. */
const base = { tag: 'admin', auth: 'admin' } as const;
const ADMIN_ERRORS = ['not_found', 'conflict', 'unavailable'] as const;

const createOrganization: RouteSpec<CreateOrganizationBody> = {
  ...base,
  method: 'POST',
  path: '/api/v2/admin/organizations',
  operationId: 'adminCreateOrganization',
  idempotent: true,
  summary:
    'Create an organization and push its quota policy (repeating a create with the same settings is a safe retry: 200)',
  requestSchema: CreateOrganizationRequest,
  responses: {
    201: { description: 'Created', schema: Organization },
    200: {
      description: 'It already existed with these settings; its policy was pushed again',
      schema: Organization,
    },
  },
  errors: ['conflict', 'unavailable'],
  async handle({ body, call }, deps) {
    const { org, created } = await deps.accounts.createOrganization(body, call.requestId);
    return json(created ? 201 : 200, org);
  },
};

const listOrganizations: RouteSpec = {
  ...base,
  method: 'GET',
  path: '/api/v2/admin/organizations',
  operationId: 'adminListOrganizations',
  summary: 'List organizations',
  responses: { 200: { description: 'All organizations, by id', schema: OrganizationList } },
  handle: async (_input, deps) =>
    json(200, { organizations: await deps.accounts.listOrganizations() }),
};

const getOrganization: RouteSpec = {
  ...base,
  method: 'GET',
  path: '/api/v2/admin/organizations/:organizationId',
  operationId: 'adminGetOrganization',
  summary: 'One organization',
  responses: { 200: { description: 'The organization', schema: Organization } },
  errors: ['not_found'],
  handle: async ({ params }, deps) =>
    json(200, await deps.accounts.getOrganization(params.organizationId)),
};

const updateOrganization: RouteSpec<UpdateOrganizationBody> = {
  ...base,
  method: 'PATCH',
  path: '/api/v2/admin/organizations/:organizationId',
  operationId: 'adminUpdateOrganization',
  summary:
    'Change name, quota, thresholds, hard/soft or rate limits, and push the policy (safe to repeat)',
  requestSchema: UpdateOrganizationRequest,
  responses: { 200: { description: 'The updated organization', schema: Organization } },
  errors: [...ADMIN_ERRORS],
  handle: async ({ params, body, call }, deps) =>
    json(200, await deps.accounts.updateOrganization(params.organizationId, body, call.requestId)),
};

const issueKey: RouteSpec<IssueKeyBody> = {
  ...base,
  method: 'POST',
  path: '/api/v2/admin/organizations/:organizationId/keys',
  operationId: 'adminIssueKey',
  summary:
    'Issue an API key for the organization, with its scopes (the key is in this response only)',
  requestSchema: IssueKeyRequest,
  responses: { 201: { description: 'The new key', schema: IssuedApiKey } },
  errors: ['not_found'],
  handle: async ({ params, body }, deps) =>
    json(201, await deps.accounts.issueKey(params.organizationId, body)),
};

const updateKey: RouteSpec<UpdateKeyBody> = {
  ...base,
  method: 'PATCH',
  path: '/api/v2/admin/keys/:keyId',
  operationId: 'adminUpdateKey',
  summary: 'Change a key: name, models, routes, expiresAt (null removes one)',
  requestSchema: UpdateKeyRequest,
  responses: { 200: { description: 'The key as changed', schema: ApiKey } },
  errors: ['not_found'],
  handle: async ({ params, body }, deps) =>
    json(200, await deps.accounts.updateKey(params.keyId, body)),
};

const listKeys: RouteSpec = {
  ...base,
  method: 'GET',
  path: '/api/v2/admin/organizations/:organizationId/keys',
  operationId: 'adminListKeys',
  summary: "The organization's keys (ids and metadata; never the keys)",
  responses: { 200: { description: 'Keys, oldest first', schema: ApiKeyList } },
  errors: ['not_found'],
  handle: async ({ params }, deps) =>
    json(200, { keys: await deps.accounts.listKeys(params.organizationId) }),
};

const revokeKey: RouteSpec = {
  ...base,
  method: 'POST',
  path: '/api/v2/admin/keys/:keyId/revoke',
  operationId: 'adminRevokeKey',
  summary: 'Revoke a key now: every gateway replica refuses it within KEY_CACHE_TTL_MS',
  requestSchema: EmptyRequest,
  responses: { 200: { description: 'The revoked key', schema: ApiKey } },
  errors: ['not_found'],
  handle: async ({ params }, deps) => json(200, await deps.accounts.revokeKey(params.keyId)),
};

const rotateKey: RouteSpec<RotateKeyBody> = {
  ...base,
  method: 'POST',
  path: '/api/v2/admin/keys/:keyId/rotate',
  operationId: 'adminRotateKey',
  summary:
    'Issue a new key for the same organization and name and revoke the old one (after gracePeriodSeconds)',
  requestSchema: RotateKeyRequest,
  responses: { 201: { description: 'The new key', schema: RotatedApiKey } },
  errors: ['not_found', 'conflict'],
  handle: async ({ params, body }, deps) =>
    json(201, await deps.accounts.rotateKey(params.keyId, body.gracePeriodSeconds ?? 0)),
};

export const adminRoutes: AnyRoute[] = [
  createOrganization,
  listOrganizations,
  getOrganization,
  updateOrganization,
  issueKey,
  listKeys,
  updateKey,
  revokeKey,
  rotateKey,
];
