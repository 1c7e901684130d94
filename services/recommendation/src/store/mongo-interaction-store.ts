import { isDuplicateKeyError } from '@switchyard/shared';
import { MongoBulkWriteError, ObjectId, type Collection, type Db } from 'mongodb';
import type { UserInteraction } from '../model/types';
import type { InteractionStore, InteractionToStore } from './interaction-store';

interface InteractionDocument extends UserInteraction {
  _id: ObjectId;
  organization: string;
  /** The caller's dedupe key, or a unique one for interactions that are never retries. */
  key: string;
}

export const INTERACTIONS_COLLECTION = 'interactions';

function toInteraction(document: InteractionDocument): UserInteraction {
  const { userId, itemId, type, value, timestamp } = document;
  return { userId, itemId, type, value, timestamp };
}

/** Indexes (in the batch) of inserts that failed because the key was already stored. */
function duplicateIndexes(error: unknown): Set<number> {
  if (!(error instanceof MongoBulkWriteError)) throw error;
  const writeErrors = Array.isArray(error.writeErrors) ? error.writeErrors : [error.writeErrors];
  const duplicates = new Set<number>();
  for (const writeError of writeErrors) {
    if (!isDuplicateKeyError({ code: writeError.code, message: writeError.errmsg })) throw error;
    duplicates.add(writeError.index);
  }
  return duplicates;
}

/**
 * InteractionStore on MongoDB: an append-only log. Retries are dropped by a unique index on
 * (organization, key), so two replicas storing the same retried batch store it once. Ids are
 * created here in append order, and scan() streams by id, oldest first.
 */
export class MongoInteractionStore implements InteractionStore {
  private readonly interactions: Collection<InteractionDocument>;

  constructor(db: Db) {
    this.interactions = db.collection<InteractionDocument>(INTERACTIONS_COLLECTION);
  }

  async ensureIndexes(): Promise<void> {
    await this.interactions.createIndex({ organization: 1, key: 1 }, { unique: true, name: 'organization_key' });
    await this.interactions.createIndex({ organization: 1, _id: 1 }, { name: 'organization_id' });
    await this.interactions.createIndex({ organization: 1, userId: 1, _id: 1 }, { name: 'organization_user' });
  }

  async append(organization: string, interactions: readonly InteractionToStore[]): Promise<UserInteraction[]> {
    const seen = new Set<string>();
    const documents: InteractionDocument[] = [];
    for (const { dedupeKey, ...interaction } of interactions) {
      if (dedupeKey !== undefined && seen.has(dedupeKey)) continue; // a retry within the batch
      if (dedupeKey !== undefined) seen.add(dedupeKey);
      const _id = new ObjectId();
      documents.push({ _id, organization, key: dedupeKey ?? `id:${_id.toHexString()}`, ...interaction });
    }
    if (documents.length === 0) return [];
    let skipped = new Set<number>();
    try {
      await this.interactions.insertMany(documents, { ordered: false });
    } catch (error) {
      skipped = duplicateIndexes(error);
    }
    return documents.filter((_, index) => !skipped.has(index)).map(toInteraction);
  }

  async count(organization: string): Promise<number> {
    return this.interactions.countDocuments({ organization });
  }

  async forUser(organization: string, userId: string): Promise<UserInteraction[]> {
    const documents = await this.interactions.find({ organization, userId }).sort({ _id: 1 }).toArray();
    return documents.map(toInteraction);
  }

  /** Streams with a cursor, so rebuilding a model never holds the whole log in memory. */
  async *scan(organization: string): AsyncIterable<UserInteraction> {
    const cursor = this.interactions.find({ organization }).sort({ _id: 1 }).batchSize(1000);
    try {
      for await (const document of cursor) yield toInteraction(document);
    } finally {
      await cursor.close();
    }
  }

  async organizations(): Promise<string[]> {
    return (await this.interactions.distinct('organization')) as string[];
  }
}
