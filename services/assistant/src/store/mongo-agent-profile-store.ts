import type { Collection, Db } from 'mongodb';
import type { AgentProfile, AgentProfileStore } from './agent-profile-store';

export const AGENT_PROFILES = 'agent_profiles';

export class MongoAgentProfileStore implements AgentProfileStore {
  private readonly profiles: Collection<AgentProfile>;

  constructor(db: Db) {
    this.profiles = db.collection<AgentProfile>(AGENT_PROFILES, { ignoreUndefined: true });
  }

  async ensureIndexes(): Promise<void> {
    await this.profiles.createIndex({ organization: 1, name: 1 }, { unique: true, name: 'organization_name' });
  }

  async put(profile: AgentProfile): Promise<void> {
    await this.profiles.replaceOne({ organization: profile.organization, name: profile.name }, { ...profile }, { upsert: true });
  }

  async get(organization: string, name: string): Promise<AgentProfile | undefined> {
    return (await this.profiles.findOne({ organization, name }, { projection: { _id: 0 } })) ?? undefined;
  }

  async list(organization: string): Promise<AgentProfile[]> {
    return this.profiles.find({ organization }, { projection: { _id: 0 } }).sort({ name: 1 }).toArray();
  }

  async delete(organization: string, name: string): Promise<boolean> {
    return (await this.profiles.deleteOne({ organization, name })).deletedCount > 0;
  }
}
