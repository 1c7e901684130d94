import type { Collection, Db } from 'mongodb';
import { withDefaults, type AgentProfile, type AgentProfileStore } from './port';
import { documentId } from '../document-id';

export const AGENT_PROFILES = 'agent_profiles';

/** Profiles as `_id: organization␀name`, so resolving a call's agent is an `_id` lookup; only listing scans the organization. */
export class MongoAgentProfileStore implements AgentProfileStore {
  private readonly profiles: Collection<AgentProfile & { _id: string }>;

  constructor(db: Db) {
    this.profiles = db.collection<AgentProfile & { _id: string }>(AGENT_PROFILES, {
      ignoreUndefined: true,
    });
  }

  async ensureIndexes(): Promise<void> {
    await this.profiles.createIndex(
      { organization: 1, name: 1 },
      { unique: true, name: 'organization_name' },
    );
  }

  async put(profile: AgentProfile): Promise<void> {
    await this.profiles.replaceOne(
      { _id: documentId(profile.organization, profile.name) },
      { ...profile },
      { upsert: true },
    );
  }

  async get(organization: string, name: string): Promise<AgentProfile | undefined> {
    const found = await this.profiles.findOne(
      { _id: documentId(organization, name) },
      { projection: { _id: 0 } },
    );
    return found ? withDefaults(found) : undefined;
  }

  async list(organization: string): Promise<AgentProfile[]> {
    const found = await this.profiles
      .find({ organization }, { projection: { _id: 0 } })
      .sort({ name: 1 })
      .toArray();
    return found.map(withDefaults);
  }

  async delete(organization: string, name: string): Promise<boolean> {
    return (
      (await this.profiles.deleteOne({ _id: documentId(organization, name) })).deletedCount > 0
    );
  }
}
