import { AppError, newId, outageOf, type Logger } from '@switchyard/shared';
import type { ApiKeyStore, Budget, TeamChanges, TeamRecord, TeamStore } from '../store';

/** A new team: its name and budget. */
export interface NewTeam {
  name: string;
  budget?: Budget;
}

/** A team as the API shows it. */
export type TeamView = TeamRecord;

export interface TeamsDeps {
  teams: TeamStore;
  apiKeys: ApiKeyStore;
  logger: Logger;
  /** How long a replica reuses a team it looked up for a call (its budget); 0: never. */
  cacheTtlMs: number;
}

/**
 * Teams (named groups of an organization's keys) and the lookups a call makes of its key's team,
 * cached briefly per replica like organizations: a changed budget reaches every replica within
 * the TTL (this one at once).
 */
export class Teams {
  private readonly cache = new Map<string, { team: TeamRecord | undefined; expiresAt: number }>();

  constructor(private readonly deps: TeamsDeps) {}

  async create(organization: string, input: NewTeam): Promise<TeamView> {
    const record: TeamRecord = {
      teamId: newId('team'),
      organization,
      name: input.name,
      ...(input.budget ? { budget: input.budget } : {}),
      createdAt: new Date().toISOString(),
    };
    await this.deps.teams.insert(record);
    this.deps.logger.info({ organization, teamId: record.teamId }, 'team created');
    return record;
  }

  list(organization: string): Promise<TeamView[]> {
    return this.deps.teams.listByOrganization(organization);
  }

  /** The organization's team; 404 for an unknown id or another organization's team. */
  async get(organization: string, teamId: string): Promise<TeamView> {
    const team = await this.deps.teams.get(teamId);
    if (!team || team.organization !== organization) throw AppError.notFound(`no team ${teamId}`);
    return team;
  }

  async update(organization: string, teamId: string, changes: TeamChanges): Promise<TeamView> {
    await this.get(organization, teamId);
    const team = await this.deps.teams.update(teamId, changes);
    if (!team) throw AppError.notFound(`no team ${teamId}`);
    this.cache.delete(teamId);
    this.deps.logger.info({ organization, teamId }, 'team changed');
    return team;
  }

  /** A team with keys is not deleted (409): move or revoke them first. */
  async delete(organization: string, teamId: string): Promise<void> {
    await this.get(organization, teamId);
    const members = (await this.deps.apiKeys.listByOrganization(organization)).filter(
      (key) => key.teamId === teamId && !(key.revokedAt && Date.parse(key.revokedAt) <= Date.now()),
    );
    if (members.length > 0)
      throw new AppError(
        'conflict',
        `team ${teamId} still has ${members.length} key(s); move them to another team (PATCH the key's teamId) or revoke them first`,
        members.map((key) => ({ keyId: key.keyId, reason: 'in the team' })),
      );
    await this.deps.teams.delete(teamId);
    this.cache.delete(teamId);
    this.deps.logger.info({ organization, teamId }, 'team deleted');
  }

  /** 400 unless the team is the organization's: a key's teamId must name one. */
  async checkMembership(organization: string, teamId: string): Promise<void> {
    const team = await this.deps.teams.get(teamId);
    if (!team || team.organization !== organization)
      throw new AppError('invalid_request', `no team ${teamId} in this organization`, [
        { field: '/teamId', reason: 'unknown team' },
      ]);
  }

  /** A call's team (its budget), from the short cache; undefined for a team deleted meanwhile. */
  async teamOf(organization: string, teamId: string): Promise<TeamRecord | undefined> {
    const now = Date.now();
    const cached = this.cache.get(teamId);
    if (cached && cached.expiresAt > now) return cached.team;
    let team: TeamRecord | undefined;
    try {
      team = await this.deps.teams.get(teamId);
    } catch (error) {
      // The store unreachable: the last known team serves until it is back.
      if (cached && outageOf(error)) return cached.team;
      throw error;
    }
    if (team && team.organization !== organization) team = undefined;
    if (this.deps.cacheTtlMs > 0)
      this.cache.set(teamId, { team, expiresAt: now + this.deps.cacheTtlMs });
    return team;
  }
}
