import { insertMissing, isDuplicateKeyError, moveLegacyDocuments } from '@switchyard/shared';
import type { Collection, Db } from 'mongodb';
import {
  earlierRevocation,
  keyExists,
  type ApiKeyRecord,
  type ApiKeyStore,
} from '../auth/api-key-store';
import type { Organization } from './organization';
import { organizationExists, type OrganizationStore } from './organization-store';

/**
 * Organizations by `_id` = organization id and keys by `_id` = key hash: an authentication and a
 * policy read are each one lookup by `_id`, the one every MongoDB-compatible server serves from
 * its index (FerretDB scans for anything else).
 */
export const GatewayCollections = {
  organizations: 'organizations_by_id',
  apiKeys: 'api_keys_by_hash',
} as const;
/** The earlier layout (ObjectId `_id`), moved into the collections above at start. */
const LegacyCollections = { organizations: 'organizations', apiKeys: 'api_keys' } as const;

type OrganizationDocument = Organization & { _id: string };
type ApiKeyDocument = ApiKeyRecord & { _id: string };

/**
 * The unique `_id` carries identity (org id, key hash) and a unique index the key id: a unique
 * insert is the one write every MongoDB-compatible server (FerretDB included) performs
 * atomically. createIndex is idempotent, and so is moving the earlier layout's documents.
 */
export async function ensureGatewayIndexes(db: Db): Promise<void> {
  const organizations = db.collection<OrganizationDocument>(GatewayCollections.organizations);
  const apiKeys = db.collection<ApiKeyDocument>(GatewayCollections.apiKeys);
  await apiKeys.createIndex({ keyId: 1 }, { unique: true, name: 'key_id' });
  await apiKeys.createIndex({ organization: 1, createdAt: 1 }, { name: 'by_organization' });
  await moveLegacyDocuments(db.collection<Organization>(LegacyCollections.organizations), (batch) =>
    insertMissing(
      organizations,
      batch.map(({ _id, ...org }) => ({ ...org, _id: org.id })),
    ),
  );
  await moveLegacyDocuments(db.collection<ApiKeyRecord>(LegacyCollections.apiKeys), (batch) =>
    insertMissing(
      apiKeys,
      batch.map(({ _id, ...record }) => ({ ...record, _id: record.hash })),
    ),
  );
}

/** A stored document without Mongo's _id. */
function withoutId<T>(doc: (T & { _id?: unknown }) | null): T | undefined {
  if (!doc) return undefined;
  const { _id, ...rest } = doc;
  return rest as T;
}

const NO_ID = { projection: { _id: 0 } } as const;

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

export class MongoApiKeyStore implements ApiKeyStore {
  private readonly keys: Collection<ApiKeyDocument>;

  constructor(db: Db) {
    this.keys = db.collection<ApiKeyDocument>(GatewayCollections.apiKeys);
  }

  async insert(record: ApiKeyRecord): Promise<void> {
    try {
      await this.keys.insertOne({ ...record, _id: record.hash });
    } catch (error) {
      if (isDuplicateKeyError(error)) throw keyExists();
      throw error;
    }
  }

  async findByHash(hash: string): Promise<ApiKeyRecord | undefined> {
    return withoutId(await this.keys.findOne({ _id: hash }, NO_ID));
  }

  async listByOrganization(organization: string): Promise<ApiKeyRecord[]> {
    const docs = await this.keys.find({ organization }, NO_ID).sort({ createdAt: 1 }).toArray();
    return docs.map((doc) => withoutId<ApiKeyRecord>(doc)!);
  }

  /** Admin only (revoke, rotate): by the unique index on keyId (a scan on FerretDB, fine for these). */
  async findById(keyId: string): Promise<ApiKeyRecord | undefined> {
    return withoutId(await this.keys.findOne({ keyId }, NO_ID));
  }

  /**
   * Read, then write the earlier instant. Two concurrent revocations of one key both end with a
   * revocation in place (whichever lands last), so no atomic compare-and-set is needed.
   */
  async revoke(keyId: string, at: string): Promise<ApiKeyRecord | undefined> {
    const current = await this.findById(keyId);
    if (!current) return undefined;
    const revokedAt = earlierRevocation(current.revokedAt, at);
    await this.keys.updateOne({ _id: current.hash }, { $set: { revokedAt } });
    return { ...current, revokedAt };
  }
}
