import { isDuplicateKeyError } from '@switchyard/shared';
import type { Collection, Db } from 'mongodb';
import { earlierRevocation, keyExists, type ApiKeyRecord, type ApiKeyStore } from '../auth/api-key-store';
import type { Organization } from './organization';
import { organizationExists, type OrganizationStore } from './organization-store';

export const GatewayCollections = { organizations: 'organizations', apiKeys: 'api_keys' } as const;

/**
 * Unique indexes carry identity (org id, key hash, key id): a unique insert is the one write
 * every MongoDB-compatible server (FerretDB included) performs atomically. createIndex is idempotent.
 */
export async function ensureGatewayIndexes(db: Db): Promise<void> {
  await db.collection(GatewayCollections.organizations).createIndex({ id: 1 }, { unique: true, name: 'organization_id' });
  await db.collection(GatewayCollections.apiKeys).createIndex({ hash: 1 }, { unique: true, name: 'key_hash' });
  await db.collection(GatewayCollections.apiKeys).createIndex({ keyId: 1 }, { unique: true, name: 'key_id' });
  await db.collection(GatewayCollections.apiKeys).createIndex({ organization: 1, createdAt: 1 }, { name: 'by_organization' });
}

/** A stored document without Mongo's _id. */
function withoutId<T>(doc: (T & { _id?: unknown }) | null): T | undefined {
  if (!doc) return undefined;
  const { _id, ...rest } = doc;
  return rest as T;
}

const NO_ID = { projection: { _id: 0 } } as const;

export class MongoOrganizationStore implements OrganizationStore {
  private readonly orgs: Collection<Organization>;

  constructor(db: Db) {
    this.orgs = db.collection<Organization>(GatewayCollections.organizations);
  }

  async create(org: Organization): Promise<void> {
    try {
      await this.orgs.insertOne({ ...org });
    } catch (error) {
      if (isDuplicateKeyError(error)) throw organizationExists(org.id);
      throw error;
    }
  }

  async get(id: string): Promise<Organization | undefined> {
    return withoutId(await this.orgs.findOne({ id }, NO_ID));
  }

  async list(): Promise<Organization[]> {
    const docs = await this.orgs.find({}, NO_ID).sort({ id: 1 }).toArray();
    return docs.map((doc) => withoutId<Organization>(doc)!);
  }

  /** Last writer wins: settings are replaced whole, no compare-and-set is needed. */
  async replace(org: Organization): Promise<Organization | undefined> {
    const { id, createdAt: _createdAt, ...settings } = org;
    const result = await this.orgs.updateOne({ id }, { $set: settings });
    if (result.matchedCount === 0) return undefined;
    return this.get(id);
  }
}

export class MongoApiKeyStore implements ApiKeyStore {
  private readonly keys: Collection<ApiKeyRecord>;

  constructor(db: Db) {
    this.keys = db.collection<ApiKeyRecord>(GatewayCollections.apiKeys);
  }

  async insert(record: ApiKeyRecord): Promise<void> {
    try {
      await this.keys.insertOne({ ...record });
    } catch (error) {
      if (isDuplicateKeyError(error)) throw keyExists();
      throw error;
    }
  }

  async findByHash(hash: string): Promise<ApiKeyRecord | undefined> {
    return withoutId(await this.keys.findOne({ hash }, NO_ID));
  }

  async findById(keyId: string): Promise<ApiKeyRecord | undefined> {
    return withoutId(await this.keys.findOne({ keyId }, NO_ID));
  }

  async listByOrganization(organization: string): Promise<ApiKeyRecord[]> {
    const docs = await this.keys.find({ organization }, NO_ID).sort({ createdAt: 1 }).toArray();
    return docs.map((doc) => withoutId<ApiKeyRecord>(doc)!);
  }

  /**
   * Read, then write the earlier instant. Two concurrent revocations of one key both end with a
   * revocation in place (whichever lands last), so no atomic compare-and-set is needed.
   */
  async revoke(keyId: string, at: string): Promise<ApiKeyRecord | undefined> {
    const current = await this.findById(keyId);
    if (!current) return undefined;
    const revokedAt = earlierRevocation(current.revokedAt, at);
    await this.keys.updateOne({ keyId }, { $set: { revokedAt } });
    return { ...current, revokedAt };
  }
}
