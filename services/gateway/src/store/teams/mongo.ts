import { AppError, isDuplicateKeyError } from '@switchyard/shared';
import type { Collection, Db } from 'mongodb';
import { GatewayCollections, NO_ID, withoutId, type TeamDocument } from '../collections';
import type { TeamChanges, TeamRecord, TeamStore } from './port';

export class MongoTeamStore implements TeamStore {
  private readonly teams: Collection<TeamDocument>;

  constructor(db: Db) {
    this.teams = db.collection<TeamDocument>(GatewayCollections.teams);
  }

  async insert(record: TeamRecord): Promise<void> {
    try {
      await this.teams.insertOne({ ...record, _id: record.teamId });
    } catch (error) {
      if (isDuplicateKeyError(error))
        throw new AppError('conflict', `team ${record.teamId} exists`);
      throw error;
    }
  }

  async get(teamId: string): Promise<TeamRecord | undefined> {
    return withoutId(await this.teams.findOne({ _id: teamId }, NO_ID));
  }

  async listByOrganization(organization: string): Promise<TeamRecord[]> {
    const docs = await this.teams.find({ organization }, NO_ID).sort({ createdAt: 1 }).toArray();
    return docs.map((doc) => withoutId<TeamRecord>(doc)!);
  }

  /** One update by id: the name and budget given set, a null budget unset. */
  async update(teamId: string, changes: TeamChanges): Promise<TeamRecord | undefined> {
    const set: Partial<TeamRecord> = {};
    if (changes.name !== undefined) set.name = changes.name;
    if (changes.budget) set.budget = changes.budget;
    const update = {
      ...(Object.keys(set).length > 0 ? { $set: set } : {}),
      ...(changes.budget === null ? { $unset: { budget: '' as const } } : {}),
    };
    if (Object.keys(update).length === 0) return this.get(teamId);
    // No projection: FerretDB's findAndModify does not take one.
    const updated = await this.teams.findOneAndUpdate({ _id: teamId }, update, {
      returnDocument: 'after',
    });
    return withoutId<TeamRecord>(updated);
  }

  async delete(teamId: string): Promise<boolean> {
    return (await this.teams.deleteOne({ _id: teamId })).deletedCount === 1;
  }
}
