import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import type { Agree, SameFields } from '@switchyard/shared/contracts';
import type { TeamChanges } from '../store/teams/port';
import type { NewTeam } from '../accounts/teams';
import { Budget } from './admin';
import { DATE_TIME, NON_BLANK, type JsonSchema } from './common';

const TEAM_NAME = { ...NON_BLANK, maxLength: 100, description: 'e.g. "search"' } as const;
const TEAM_BUDGET = {
  ...Budget,
  description:
    "The team's budget: the calls of all its keys together; a call that would pass it is 429 budget_exceeded (level team)",
} as const;

export const CreateTeamRequest = {
  title: 'CreateTeamRequest',
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  properties: { name: TEAM_NAME, budget: TEAM_BUDGET },
} as const satisfies JSONSchema;

export type CreateTeamBody = FromSchema<typeof CreateTeamRequest>;
export type CreateTeamAgrees = Agree<SameFields<CreateTeamBody, NewTeam>>;

/** Each field given is set; a null budget removes it. */
export const UpdateTeamRequest = {
  title: 'UpdateTeamRequest',
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: { name: TEAM_NAME, budget: { ...TEAM_BUDGET, type: ['object', 'null'] } },
} as const satisfies JSONSchema;

export type UpdateTeamBody = FromSchema<typeof UpdateTeamRequest>;
export type UpdateTeamAgrees = Agree<SameFields<UpdateTeamBody, TeamChanges>>;

export const Team: JsonSchema = {
  title: 'Team',
  type: 'object',
  additionalProperties: false,
  required: ['teamId', 'organization', 'name', 'createdAt'],
  properties: {
    teamId: { type: 'string' },
    organization: { type: 'string' },
    name: { type: 'string' },
    budget: Budget,
    createdAt: DATE_TIME,
  },
};

export const TeamList: JsonSchema = {
  title: 'TeamList',
  type: 'object',
  additionalProperties: false,
  required: ['teams'],
  properties: { teams: { type: 'array', items: Team } },
};
