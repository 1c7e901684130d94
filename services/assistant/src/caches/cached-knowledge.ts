import type {
  DocumentPage,
  KnowledgeCollection,
  KnowledgeDocument,
  KnowledgeStore,
} from '../store/knowledge/port';
import type { OrganizationCache } from './organization-cache';

/**
 * Knowledge whose catalog (the organization's collections with their revisions, read on every
 * turn) is served from memory until it changes; documents are read from the store as before. A
 * write here drops the catalog at once and tells the other replicas (`changed`).
 */
export class CachedKnowledgeStore implements KnowledgeStore {
  constructor(
    private readonly store: KnowledgeStore,
    private readonly cache: OrganizationCache<KnowledgeCollection[]>,
    private readonly changed: (organization: string) => Promise<void>,
  ) {}

  listCollections(organization: string): Promise<KnowledgeCollection[]> {
    return this.cache.get(organization, () => this.store.listCollections(organization));
  }

  /** From the store: writes check a collection with it, and must not act on a stale catalog. */
  getCollection(organization: string, name: string): Promise<KnowledgeCollection | undefined> {
    return this.store.getCollection(organization, name);
  }

  createCollection(collection: KnowledgeCollection): Promise<void> {
    return this.writing(collection.organization, () => this.store.createCollection(collection));
  }

  deleteCollection(organization: string, name: string): Promise<boolean> {
    return this.writing(organization, () => this.store.deleteCollection(organization, name));
  }

  upsertDocuments(
    organization: string,
    collection: string,
    documents: KnowledgeDocument[],
  ): Promise<void> {
    return this.writing(organization, () =>
      this.store.upsertDocuments(organization, collection, documents),
    );
  }

  deleteDocuments(organization: string, collection: string, ids: string[]): Promise<number> {
    return this.writing(organization, () =>
      this.store.deleteDocuments(organization, collection, ids),
    );
  }

  getDocument(
    organization: string,
    collection: string,
    id: string,
  ): Promise<KnowledgeDocument | undefined> {
    return this.store.getDocument(organization, collection, id);
  }

  listDocuments(
    organization: string,
    collection: string,
    limit: number,
    after?: string,
  ): Promise<DocumentPage> {
    return this.store.listDocuments(organization, collection, limit, after);
  }

  allDocuments(organization: string, collection: string): Promise<KnowledgeDocument[]> {
    return this.store.allDocuments(organization, collection);
  }

  close(): Promise<void> {
    return this.store.close();
  }

  /** The catalog is dropped even when the write failed: it may have been applied before the error. */
  private async writing<T>(organization: string, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } finally {
      this.cache.drop(organization);
      await this.changed(organization);
    }
  }
}
