import { isDuplicateKeyError } from '@switchyard/shared';
import type { AnyBulkWriteOperation, Collection, Db } from 'mongodb';
import type { CatalogItem } from '../model/types';
import type { ItemStore } from './item-store';

interface ItemDocument extends CatalogItem {
  organization: string;
}

export const ITEMS_COLLECTION = 'items';

function toItem(document: ItemDocument & { _id?: unknown }): CatalogItem {
  const { _id, organization: _organization, ...item } = document;
  return item;
}

/** ItemStore on MongoDB: one document per (organization, itemId), replaced on upsert. */
export class MongoItemStore implements ItemStore {
  private readonly items: Collection<ItemDocument>;

  constructor(db: Db) {
    this.items = db.collection<ItemDocument>(ITEMS_COLLECTION, { ignoreUndefined: true });
  }

  async ensureIndexes(): Promise<void> {
    await this.items.createIndex({ organization: 1, itemId: 1 }, { unique: true, name: 'organization_item_id' });
    await this.items.createIndex({ organization: 1, catalog: 1, categories: 1 }, { name: 'organization_catalog_categories' });
  }

  async upsert(organization: string, items: readonly CatalogItem[]): Promise<number> {
    // The last occurrence of an id in the batch wins, as with sequential upserts.
    const latest = new Map(items.map((item) => [item.itemId, item]));
    if (latest.size === 0) return 0;
    const operations: AnyBulkWriteOperation<ItemDocument>[] = [...latest.values()].map((item) => ({
      replaceOne: { filter: { organization, itemId: item.itemId }, replacement: { ...item, categories: [...item.categories], organization }, upsert: true },
    }));
    try {
      await this.items.bulkWrite(operations, { ordered: false });
    } catch (error) {
      // Two replicas inserting the same new id at once: one upsert loses the race; replaying it replaces.
      if (!isDuplicateKeyError(error)) throw error;
      await this.items.bulkWrite(operations, { ordered: false });
    }
    return latest.size;
  }

  async get(organization: string, itemId: string): Promise<CatalogItem | undefined> {
    const document = await this.items.findOne({ organization, itemId });
    return document ? toItem(document) : undefined;
  }

  async getMany(organization: string, itemIds: readonly string[]): Promise<Map<string, CatalogItem>> {
    const found = new Map<string, CatalogItem>();
    if (itemIds.length === 0) return found;
    for await (const document of this.items.find({ organization, itemId: { $in: [...new Set(itemIds)] } })) {
      found.set(document.itemId, toItem(document));
    }
    return found;
  }

  async withCategories(organization: string, catalog: string, categories: readonly string[], limit: number): Promise<CatalogItem[]> {
    if (categories.length === 0) return [];
    const documents = await this.items.find({ organization, catalog: catalog as CatalogItem["catalog"], categories: { $in: [...categories] } }).limit(limit).toArray();
    return documents.map(toItem);
  }

  async delete(organization: string, itemId: string): Promise<boolean> {
    return (await this.items.deleteOne({ organization, itemId })).deletedCount === 1;
  }
}
