import {
  collectionExists,
  collectionNotFound,
  type DocumentPage,
  type KnowledgeCollection,
  type KnowledgeDocument,
  type KnowledgeStore,
} from './port';

const key = (...parts: string[]) => JSON.stringify(parts);

export class InMemoryKnowledgeStore implements KnowledgeStore {
  private readonly collections = new Map<string, KnowledgeCollection>();
  /** Per collection key: documents by id. */
  private readonly documents = new Map<string, Map<string, KnowledgeDocument>>();

  async createCollection(collection: KnowledgeCollection): Promise<void> {
    const k = key(collection.organization, collection.name);
    if (this.collections.has(k)) throw collectionExists(collection.organization, collection.name);
    this.collections.set(k, structuredClone(collection));
    this.documents.set(k, new Map());
  }

  async getCollection(
    organization: string,
    name: string,
  ): Promise<KnowledgeCollection | undefined> {
    const found = this.collections.get(key(organization, name));
    return found ? structuredClone(found) : undefined;
  }

  async listCollections(organization: string): Promise<KnowledgeCollection[]> {
    return [...this.collections.values()]
      .filter((c) => c.organization === organization)
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((c) => structuredClone(c));
  }

  async deleteCollection(organization: string, name: string): Promise<boolean> {
    const k = key(organization, name);
    this.documents.delete(k);
    return this.collections.delete(k);
  }

  async upsertDocuments(
    organization: string,
    collection: string,
    documents: KnowledgeDocument[],
  ): Promise<void> {
    const docs = this.docsOf(organization, collection);
    for (const doc of documents) docs.set(doc.id, structuredClone(doc));
    this.touch(organization, collection, docs.size);
  }

  async deleteDocuments(organization: string, collection: string, ids: string[]): Promise<number> {
    const docs = this.docsOf(organization, collection);
    const removed = [...new Set(ids)].filter((id) => docs.delete(id)).length;
    this.touch(organization, collection, docs.size);
    return removed;
  }

  async getDocument(
    organization: string,
    collection: string,
    id: string,
  ): Promise<KnowledgeDocument | undefined> {
    const found = this.documents.get(key(organization, collection))?.get(id);
    return found ? structuredClone(found) : undefined;
  }

  async listDocuments(
    organization: string,
    collection: string,
    limit: number,
    after?: string,
  ): Promise<DocumentPage> {
    const sorted = [...this.docsOf(organization, collection).values()].sort((a, b) =>
      a.id < b.id ? -1 : a.id > b.id ? 1 : 0,
    );
    const rest = after === undefined ? sorted : sorted.filter((d) => d.id > after);
    const documents = rest.slice(0, limit).map((d) => structuredClone(d));
    return {
      documents,
      nextAfter: rest.length > limit ? documents[documents.length - 1]?.id : undefined,
    };
  }

  async allDocuments(organization: string, collection: string): Promise<KnowledgeDocument[]> {
    return [...(this.documents.get(key(organization, collection))?.values() ?? [])].map((d) =>
      structuredClone(d),
    );
  }

  async close(): Promise<void> {}

  private docsOf(organization: string, collection: string): Map<string, KnowledgeDocument> {
    const docs = this.documents.get(key(organization, collection));
    if (!docs) throw collectionNotFound(collection);
    return docs;
  }

  private touch(organization: string, name: string, count: number): void {
    const c = this.collections.get(key(organization, name));
    if (!c) return;
    c.documentCount = count;
    c.revision += 1;
    c.updatedAt = new Date().toISOString();
  }
}
