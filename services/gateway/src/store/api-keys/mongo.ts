import { isDuplicateKeyError } from '@switchyard/shared';
import type { Collection, Db } from 'mongodb';
import { GatewayCollections, NO_ID, withoutId, type ApiKeyDocument } from '../collections';
import {
  earlierRevocation,
  keyExists,
  type ApiKeyRecord,
  type ApiKeyStore,
  type KeyChanges,
} from './port';

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

  /** Admin only (revoke, rotate): by the unique index on keyId. */
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

  /** One update by key id: the given fields set, the null ones unset. */
  async update(keyId: string, changes: KeyChanges): Promise<ApiKeyRecord | undefined> {
    const set: Record<string, unknown> = {};
    const unset: Record<string, ''> = {};
    for (const [field, value] of Object.entries(changes)) {
      if (value === null) unset[field] = '';
      else if (value !== undefined) set[field] = value;
    }
    const update = {
      ...(Object.keys(set).length > 0 ? { $set: set } : {}),
      ...(Object.keys(unset).length > 0 ? { $unset: unset } : {}),
    };
    if (Object.keys(update).length === 0) return this.findById(keyId);
    // No projection: FerretDB's findAndModify does not take one.
    const updated = await this.keys.findOneAndUpdate({ keyId }, update, {
      returnDocument: 'after',
    });
    return withoutId<ApiKeyRecord>(updated);
  }
}
