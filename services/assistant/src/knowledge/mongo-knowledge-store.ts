import { isDuplicateKeyError } from '@switchyard/shared';
import type { Collection, Db } from 'mongodb';
import type { KnowledgeDocument } from './documents';
import { collectionExists, collectionNotFound, type DocumentPage, type KnowledgeCollection, type KnowledgeStore } from './knowledge-store';

export const KNOWLEDGE_COLLECTIONS = 'knowledge_collections';
export const KNOWLEDGE_DOCUMENTS = 'knowledge_documents';
/** Documents per bulkWrite round trip. */
const WRITE_BATCH = 500;

/** KnowledgeStore on MongoDB: every query filters on organization first (and the indexes lead with it). */
export class MongoKnowledgeStore implements KnowledgeStore {
  private readonly collections: Collection<KnowledgeCollection>;
  private readonly documents: Collection<KnowledgeDocument>;

  constructor(db: Db) {
    this.collections = db.collection<KnowledgeCollection>(KNOWLEDGE_COLLECTIONS, { ignoreUndefined: true });
    this.documents = db.collection<KnowledgeDocument>(KNOWLEDGE_DOCUMENTS, { ignoreUndefined: true });
  }

  async ensureIndexes(): Promise<void> {
    await this.collections.createIndex({ organization: 1, name: 1 }, { unique: true, name: 'organization_name' });
    await this.documents.createIndex({ organization: 1, collection: 1, id: 1 }, { unique: true, name: 'organization_collection_id' });
  }

  async createCollection(collection: KnowledgeCollection): Promise<void> {
    try {
      await this.collections.insertOne({ ...collection });
    } catch (error) {
      if (isDuplicateKeyError(error)) throw collectionExists(collection.organization, collection.name);
      throw error;
    }
  }

  async getCollection(organization: string, name: string): Promise<KnowledgeCollection | undefined> {
    return (await this.collections.findOne({ organization, name }, { projection: { _id: 0 } })) ?? undefined;
  }

  async listCollections(organization: string): Promise<KnowledgeCollection[]> {
    return this.collections.find({ organization }, { projection: { _id: 0 } }).sort({ name: 1 }).toArray();
  }

  async deleteCollection(organization: string, name: string): Promise<boolean> {
    const { deletedCount } = await this.collections.deleteOne({ organization, name });
    await this.documents.deleteMany({ organization, collection: name });
    return deletedCount > 0;
  }

  async upsertDocuments(organization: string, collection: string, documents: KnowledgeDocument[]): Promise<void> {
    await this.requireCollection(organization, collection);
    for (let i = 0; i < documents.length; i += WRITE_BATCH) await this.writeBatch(organization, collection, documents.slice(i, i + WRITE_BATCH));
    await this.touch(organization, collection);
  }

  /**
   * New ids go in with one insertMany; only ids that exist are replaced one by one (measured on
   * FerretDB: 1,000 upserting replaceOnes take over 30 s, an insertMany of 1,000 well under 1 s).
   */
  private async writeBatch(organization: string, collection: string, batch: KnowledgeDocument[]): Promise<void> {
    const ids = batch.map((doc) => doc.id);
    const existing = new Set((await this.documents.find({ organization, collection, id: { $in: ids } }, { projection: { id: 1 } }).toArray()).map((d) => d.id));
    const fresh = batch.filter((doc) => !existing.has(doc.id)).map((doc) => ({ ...doc, organization, collection }));
    let replace = batch.filter((d) => existing.has(d.id));
    try {
      if (fresh.length > 0) await this.documents.insertMany(fresh, { ordered: false });
    } catch (error) {
      // Another writer inserted some of these ids meanwhile: replace them all (replacing is idempotent).
      if (!isDuplicateKeyError(error)) throw error;
      replace = batch;
    }
    for (const doc of replace) {
      await this.documents.replaceOne({ organization, collection, id: doc.id }, { ...doc, organization, collection }, { upsert: true });
    }
  }

  async deleteDocuments(organization: string, collection: string, ids: string[]): Promise<number> {
    await this.requireCollection(organization, collection);
    const { deletedCount } = await this.documents.deleteMany({ organization, collection, id: { $in: [...new Set(ids)] } });
    await this.touch(organization, collection);
    return deletedCount;
  }

  async getDocument(organization: string, collection: string, id: string): Promise<KnowledgeDocument | undefined> {
    return (await this.documents.findOne({ organization, collection, id }, { projection: { _id: 0 } })) ?? undefined;
  }

  async listDocuments(organization: string, collection: string, limit: number, after?: string): Promise<DocumentPage> {
    await this.requireCollection(organization, collection);
    const filter = after === undefined ? { organization, collection } : { organization, collection, id: { $gt: after } };
    const found = await this.documents.find(filter, { projection: { _id: 0 } }).sort({ id: 1 }).limit(limit + 1).toArray();
    const documents = found.slice(0, limit);
    return { documents, nextAfter: found.length > limit ? documents[documents.length - 1]?.id : undefined };
  }

  async allDocuments(organization: string, collection: string): Promise<KnowledgeDocument[]> {
    return this.documents.find({ organization, collection }, { projection: { _id: 0 } }).toArray();
  }

  async close(): Promise<void> {}

  private async requireCollection(organization: string, name: string): Promise<void> {
    if (!(await this.collections.countDocuments({ organization, name }, { limit: 1 }))) throw collectionNotFound(name);
  }

  private async touch(organization: string, name: string): Promise<void> {
    const documentCount = await this.documents.countDocuments({ organization, collection: name });
    await this.collections.updateOne({ organization, name }, { $set: { documentCount, updatedAt: new Date().toISOString() }, $inc: { revision: 1 } });
  }
}
