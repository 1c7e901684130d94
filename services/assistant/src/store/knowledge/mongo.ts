import { isDeepStrictEqual } from 'node:util';
import { isDuplicateKeyError } from '@switchyard/shared';
import type { Collection, Db } from 'mongodb';
import { documentId } from '../document-id';
import type { KnowledgeDocument } from '../../knowledge/documents';
import {
  collectionExists,
  collectionNotFound,
  type DocumentPage,
  type KnowledgeCollection,
  type KnowledgeStore,
} from './port';

export const KNOWLEDGE_COLLECTIONS = 'knowledge_collections';
export const KNOWLEDGE_DOCUMENTS = 'knowledge_documents';
/** Per organization (`_id`), its collections as listCollections returns them. */
export const KNOWLEDGE_CATALOGS = 'knowledge_catalogs';
/** Documents per bulkWrite round trip. */
const WRITE_BATCH = 500;
/** Rewrites of a catalog before a refresh gives up to writers that keep changing it (each of them refreshes it too). */
const CATALOG_ATTEMPTS = 10;

type ById<T> = T & { _id: string };

interface Catalog {
  _id: string;
  collections: KnowledgeCollection[];
}

/**
 * KnowledgeStore on MongoDB: every query filters on organization first (and the indexes lead
 * with it). What a chat call reads is addressed by `_id`:
 * a collection as `organization␀name`, a document as `organization␀collection␀id`, and the
 * organization's list of collections as one catalog document, rewritten after every change.
 */
export class MongoKnowledgeStore implements KnowledgeStore {
  private readonly collections: Collection<ById<KnowledgeCollection>>;
  private readonly documents: Collection<ById<KnowledgeDocument>>;
  private readonly catalogs: Collection<Catalog>;

  constructor(db: Db) {
    this.collections = db.collection<ById<KnowledgeCollection>>(KNOWLEDGE_COLLECTIONS, {
      ignoreUndefined: true,
    });
    this.documents = db.collection<ById<KnowledgeDocument>>(KNOWLEDGE_DOCUMENTS, {
      ignoreUndefined: true,
    });
    this.catalogs = db.collection<Catalog>(KNOWLEDGE_CATALOGS, { ignoreUndefined: true });
  }

  async ensureIndexes(): Promise<void> {
    await this.collections.createIndex(
      { organization: 1, name: 1 },
      { unique: true, name: 'organization_name' },
    );
    await this.documents.createIndex(
      { organization: 1, collection: 1, id: 1 },
      { unique: true, name: 'organization_collection_id' },
    );
  }

  async createCollection(collection: KnowledgeCollection): Promise<void> {
    try {
      await this.collections.insertOne({
        ...collection,
        _id: documentId(collection.organization, collection.name),
      });
    } catch (error) {
      if (isDuplicateKeyError(error))
        throw collectionExists(collection.organization, collection.name);
      throw error;
    }
    await this.refreshCatalog(collection.organization);
  }

  async getCollection(
    organization: string,
    name: string,
  ): Promise<KnowledgeCollection | undefined> {
    return (
      (await this.collections.findOne(
        { _id: documentId(organization, name) },
        { projection: { _id: 0 } },
      )) ?? undefined
    );
  }

  async listCollections(organization: string): Promise<KnowledgeCollection[]> {
    return (await this.catalogs.findOne({ _id: organization }))?.collections ?? [];
  }

  async deleteCollection(organization: string, name: string): Promise<boolean> {
    const { deletedCount } = await this.collections.deleteOne({
      _id: documentId(organization, name),
    });
    await this.documents.deleteMany({ organization, collection: name });
    await this.refreshCatalog(organization);
    return deletedCount > 0;
  }

  /**
   * Rewrites the organization's catalog from its collections until a fresh read of both agrees:
   * a writer that read the collections before another one's change and wrote after it is
   * corrected by whichever writer checks last (a whole-document replace, so no update merges).
   */
  private async refreshCatalog(organization: string): Promise<void> {
    for (let attempt = 0; attempt < CATALOG_ATTEMPTS; attempt++) {
      const collections = await this.collections
        .find({ organization }, { projection: { _id: 0 } })
        .sort({ name: 1 })
        .toArray();
      if (isDeepStrictEqual(await this.listCollections(organization), collections)) return;
      await this.catalogs.replaceOne({ _id: organization }, { collections }, { upsert: true });
    }
  }

  async upsertDocuments(
    organization: string,
    collection: string,
    documents: KnowledgeDocument[],
  ): Promise<void> {
    await this.requireCollection(organization, collection);
    for (let i = 0; i < documents.length; i += WRITE_BATCH)
      await this.writeBatch(organization, collection, documents.slice(i, i + WRITE_BATCH));
    await this.touch(organization, collection);
  }

  /**
   * New ids go in with one insertMany; only ids that exist are replaced one by one.
   */
  private async writeBatch(
    organization: string,
    collection: string,
    batch: KnowledgeDocument[],
  ): Promise<void> {
    const ids = batch.map((doc) => doc.id);
    const existing = new Set(
      (
        await this.documents
          .find({ organization, collection, id: { $in: ids } }, { projection: { id: 1 } })
          .toArray()
      ).map((d) => d.id),
    );
    const stored = (doc: KnowledgeDocument) => ({
      ...doc,
      organization,
      collection,
      _id: documentId(organization, collection, doc.id),
    });
    const fresh = batch.filter((doc) => !existing.has(doc.id)).map(stored);
    let replace = batch.filter((d) => existing.has(d.id));
    try {
      if (fresh.length > 0) await this.documents.insertMany(fresh, { ordered: false });
    } catch (error) {
      // Another writer inserted some of these ids meanwhile: replace them all (replacing is idempotent).
      if (!isDuplicateKeyError(error)) throw error;
      replace = batch;
    }
    for (const doc of replace) {
      const { _id, ...replacement } = stored(doc);
      await this.documents.replaceOne({ _id }, replacement, { upsert: true });
    }
  }

  async deleteDocuments(organization: string, collection: string, ids: string[]): Promise<number> {
    await this.requireCollection(organization, collection);
    const { deletedCount } = await this.documents.deleteMany({
      organization,
      collection,
      id: { $in: [...new Set(ids)] },
    });
    await this.touch(organization, collection);
    return deletedCount;
  }

  async getDocument(
    organization: string,
    collection: string,
    id: string,
  ): Promise<KnowledgeDocument | undefined> {
    return (
      (await this.documents.findOne(
        { _id: documentId(organization, collection, id) },
        { projection: { _id: 0 } },
      )) ?? undefined
    );
  }

  async listDocuments(
    organization: string,
    collection: string,
    limit: number,
    after?: string,
  ): Promise<DocumentPage> {
    await this.requireCollection(organization, collection);
    const filter =
      after === undefined
        ? { organization, collection }
        : { organization, collection, id: { $gt: after } };
    const found = await this.documents
      .find(filter, { projection: { _id: 0 } })
      .sort({ id: 1 })
      .limit(limit + 1)
      .toArray();
    const documents = found.slice(0, limit);
    return {
      documents,
      nextAfter: found.length > limit ? documents[documents.length - 1]?.id : undefined,
    };
  }

  async allDocuments(organization: string, collection: string): Promise<KnowledgeDocument[]> {
    return this.documents.find({ organization, collection }, { projection: { _id: 0 } }).toArray();
  }

  async close(): Promise<void> {}

  private async requireCollection(organization: string, name: string): Promise<void> {
    if (
      !(await this.collections.findOne(
        { _id: documentId(organization, name) },
        { projection: { _id: 1 } },
      ))
    )
      throw collectionNotFound(name);
  }

  private async touch(organization: string, name: string): Promise<void> {
    const documentCount = await this.documents.countDocuments({ organization, collection: name });
    await this.collections.updateOne(
      { _id: documentId(organization, name) },
      { $set: { documentCount, updatedAt: new Date().toISOString() }, $inc: { revision: 1 } },
    );
    await this.refreshCatalog(organization);
  }
}
