import { isDuplicateKeyError } from '@switchyard/shared';
import type { Collection, Db } from 'mongodb';
import type { Organization } from './port';
import { GatewayCollections, NO_ID, withoutId, type OrganizationDocument } from '../collections';
import { organizationExists, type OrganizationStore } from './port';

export class MongoOrganizationStore implements OrganizationStore {
  private readonly orgs: Collection<OrganizationDocument>;

  constructor(db: Db) {
    this.orgs = db.collection<OrganizationDocument>(GatewayCollections.organizations);
  }

  async create(org: Organization): Promise<void> {
    try {
      await this.orgs.insertOne({ ...org, _id: org.id });
    } catch (error) {
      if (isDuplicateKeyError(error)) throw organizationExists(org.id);
      throw error;
    }
  }

  async get(id: string): Promise<Organization | undefined> {
    return withoutId(await this.orgs.findOne({ _id: id }, NO_ID));
  }

  async list(): Promise<Organization[]> {
    const docs = await this.orgs.find({}, NO_ID).sort({ id: 1 }).toArray();
    return docs.map((doc) => withoutId<Organization>(doc)!);
  }

  /** Last writer wins: settings are replaced whole, no compare-and-set is needed. */
  async replace(org: Organization): Promise<Organization | undefined> {
    const { id, createdAt: _createdAt, ...settings } = org;
    const result = await this.orgs.updateOne({ _id: id }, { $set: settings });
    if (result.matchedCount === 0) return undefined;
    return this.get(id);
  }
}
