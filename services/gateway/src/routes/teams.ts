import {
  CreateTeamRequest,
  Team,
  TeamList,
  UpdateTeamRequest,
  type CreateTeamBody,
  type UpdateTeamBody,
} from '../schemas/teams';
import { json, type AnyRoute, type RouteSpec } from './types';

/**
 * Teams of the caller's organization (the organization's unrestricted keys manage them), and of
 * any organization behind the admin token. A key joins a team by its `teamId`.
 */
const own = { tag: 'teams', auth: true } as const;
const admin = { tag: 'admin', auth: 'admin' } as const;
const ADMIN_TEAMS = '/api/v2/admin/organizations/:organizationId/teams';

const listTeams: RouteSpec = {
  ...own,
  method: 'GET',
  path: '/api/v2/teams',
  operationId: 'listTeams',
  summary: "The organization's teams, oldest first",
  responses: { 200: { description: 'Teams', schema: TeamList } },
  handle: async ({ call }, deps) => json(200, { teams: await deps.teams.list(call.organization) }),
};

const createTeam: RouteSpec<CreateTeamBody> = {
  ...own,
  method: 'POST',
  path: '/api/v2/teams',
  operationId: 'createTeam',
  summary: 'Create a team (a named group of keys) with its budget',
  description: 'Keys limited to some `models` or `routes` cannot manage teams (403 forbidden).',
  requestSchema: CreateTeamRequest,
  responses: { 201: { description: 'The new team', schema: Team } },
  handle: async ({ body, call, key }, deps) => {
    deps.accounts.requireManager(key);
    return json(201, await deps.teams.create(call.organization, body));
  },
};

const getTeam: RouteSpec = {
  ...own,
  method: 'GET',
  path: '/api/v2/teams/:teamId',
  operationId: 'getTeam',
  summary: 'One team of the organization',
  responses: { 200: { description: 'The team', schema: Team } },
  errors: ['not_found'],
  handle: async ({ params, call }, deps) =>
    json(200, await deps.teams.get(call.organization, params.teamId!)),
};

const updateTeam: RouteSpec<UpdateTeamBody> = {
  ...own,
  method: 'PATCH',
  path: '/api/v2/teams/:teamId',
  operationId: 'updateTeam',
  summary: 'Rename a team or change its budget (null removes it)',
  requestSchema: UpdateTeamRequest,
  responses: { 200: { description: 'The team as changed', schema: Team } },
  errors: ['not_found'],
  handle: async ({ params, body, call, key }, deps) => {
    deps.accounts.requireManager(key);
    return json(200, await deps.teams.update(call.organization, params.teamId!, body));
  },
};

const deleteTeam: RouteSpec = {
  ...own,
  method: 'DELETE',
  path: '/api/v2/teams/:teamId',
  operationId: 'deleteTeam',
  summary: 'Delete a team without keys (409 while keys belong to it)',
  responses: { 204: { description: 'Deleted' } },
  errors: ['not_found', 'conflict'],
  handle: async ({ params, call, key }, deps) => {
    deps.accounts.requireManager(key);
    await deps.teams.delete(call.organization, params.teamId!);
    return { status: 204 };
  },
};

const adminListTeams: RouteSpec = {
  ...admin,
  method: 'GET',
  path: ADMIN_TEAMS,
  operationId: 'adminListTeams',
  summary: "An organization's teams",
  responses: { 200: { description: 'Teams', schema: TeamList } },
  errors: ['not_found'],
  handle: async ({ params }, deps) => {
    await deps.accounts.getOrganization(params.organizationId!);
    return json(200, { teams: await deps.teams.list(params.organizationId!) });
  },
};

const adminCreateTeam: RouteSpec<CreateTeamBody> = {
  ...admin,
  method: 'POST',
  path: ADMIN_TEAMS,
  operationId: 'adminCreateTeam',
  summary: 'Create a team in the organization',
  requestSchema: CreateTeamRequest,
  responses: { 201: { description: 'The new team', schema: Team } },
  errors: ['not_found'],
  handle: async ({ params, body }, deps) => {
    await deps.accounts.getOrganization(params.organizationId!);
    return json(201, await deps.teams.create(params.organizationId!, body));
  },
};

const adminUpdateTeam: RouteSpec<UpdateTeamBody> = {
  ...admin,
  method: 'PATCH',
  path: `${ADMIN_TEAMS}/:teamId`,
  operationId: 'adminUpdateTeam',
  summary: "Rename an organization's team or change its budget (null removes it)",
  requestSchema: UpdateTeamRequest,
  responses: { 200: { description: 'The team as changed', schema: Team } },
  errors: ['not_found'],
  handle: async ({ params, body }, deps) =>
    json(200, await deps.teams.update(params.organizationId!, params.teamId!, body)),
};

const adminDeleteTeam: RouteSpec = {
  ...admin,
  method: 'DELETE',
  path: `${ADMIN_TEAMS}/:teamId`,
  operationId: 'adminDeleteTeam',
  summary: "Delete an organization's team without keys (409 while keys belong to it)",
  responses: { 204: { description: 'Deleted' } },
  errors: ['not_found', 'conflict'],
  handle: async ({ params }, deps) => {
    await deps.teams.delete(params.organizationId!, params.teamId!);
    return { status: 204 };
  },
};

export const teamRoutes: AnyRoute[] = [
  listTeams,
  createTeam,
  getTeam,
  updateTeam,
  deleteTeam,
  adminListTeams,
  adminCreateTeam,
  adminUpdateTeam,
  adminDeleteTeam,
];
