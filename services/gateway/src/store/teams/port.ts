import type { Budget } from '../api-keys/port';

/** A named group of an organization's keys; its budget applies to all their calls together. */
export interface TeamRecord {
  teamId: string;
  organization: string;
  name: string;
  budget?: Budget;
  createdAt: string;
}

/** A change to a team: a field given is set, a null budget removed. */
export interface TeamChanges {
  name?: string;
  budget?: Budget | null;
}

/** Async so the MongoDB store drops in. Team ids are unique. */
export interface TeamStore {
  insert(record: TeamRecord): Promise<void>;
  get(teamId: string): Promise<TeamRecord | undefined>;
  /** Oldest first. */
  listByOrganization(organization: string): Promise<TeamRecord[]>;
  /** The record afterwards; undefined for an unknown team id. */
  update(teamId: string, changes: TeamChanges): Promise<TeamRecord | undefined>;
  /** Whether the team existed. */
  delete(teamId: string): Promise<boolean>;
}

/** The record with the changes applied (a null budget removed). */
export function applyTeamChanges(record: TeamRecord, changes: TeamChanges): TeamRecord {
  const { budget, ...rest } = { ...record, ...changes };
  return budget === null || budget === undefined ? rest : { ...rest, budget };
}
