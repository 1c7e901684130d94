import type { Db } from 'mongodb';
import type { OrganizationPolicyRecord, PolicyStore } from './port';
import { Collections } from '../collections';

interface PolicyDoc extends OrganizationPolicyRecord {
  /** The organization: one policy each. */
  _id: string;
}

/** Policies keyed by organization; the last put wins (a plain replace, no read-modify-write). */
export class MongoPolicyStore implements PolicyStore {
  private readonly collection;

  constructor(db: Db) {
    this.collection = db.collection<PolicyDoc>(Collections.organizationPolicies);
  }

  async put(policy: OrganizationPolicyRecord): Promise<void> {
    await this.collection.replaceOne({ _id: policy.organization }, { ...policy }, { upsert: true });
  }

  async get(organization: string): Promise<OrganizationPolicyRecord | undefined> {
    const doc = await this.collection.findOne({ _id: organization });
    if (!doc) return undefined;
    return {
      organization: doc.organization,
      monthlyTokenQuota: doc.monthlyTokenQuota,
      thresholdShares: doc.thresholdShares,
      hardQuota: doc.hardQuota,
      updatedAt: doc.updatedAt,
    };
  }
}
