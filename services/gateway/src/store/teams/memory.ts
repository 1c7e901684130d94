import { AppError } from '@switchyard/shared';
import { applyTeamChanges, type TeamChanges, type TeamRecord, type TeamStore } from './port';

export class InMemoryTeamStore implements TeamStore {
  private readonly byId = new Map<string, TeamRecord>();

  async insert(record: TeamRecord): Promise<void> {
    if (this.byId.has(record.teamId))
      throw new AppError('conflict', `team ${record.teamId} exists`);
    this.byId.set(record.teamId, structuredClone(record));
  }

  async get(teamId: string): Promise<TeamRecord | undefined> {
    const record = this.byId.get(teamId);
    return record && structuredClone(record);
  }

  async listByOrganization(organization: string): Promise<TeamRecord[]> {
    return [...this.byId.values()]
      .filter((r) => r.organization === organization)
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt))
      .map((r) => structuredClone(r));
  }

  async update(teamId: string, changes: TeamChanges): Promise<TeamRecord | undefined> {
    const record = this.byId.get(teamId);
    if (!record) return undefined;
    const next = applyTeamChanges(record, changes);
    this.byId.set(teamId, next);
    return structuredClone(next);
  }

  async delete(teamId: string): Promise<boolean> {
    return this.byId.delete(teamId);
  }
}
