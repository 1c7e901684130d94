import { insertMissing, moveLegacyDocuments } from '@switchyard/shared';
import type { AnyBulkWriteOperation, Collection, Db } from 'mongodb';
import { scopedKey, type CatalogItem } from '../../model/types';
import type { ItemStore } from './port';

interface ItemDocument extends CatalogItem {
  /** organization \0 itemId: reads and upserts go by `_id`, the lookup every server indexes. */
  _id: string;
  organization: string;
}

export const ITEMS_COLLECTION = 'catalog_items';
/** The earlier layout (ObjectId `_id`, looked up by organization and itemId), moved at start. */
const LEGACY_ITEMS_COLLECTION = 'items';

function toItem(document: ItemDocument): CatalogItem {
  const { _id, organization: _organization, ...item } = document;
  return item;
}

/** ItemStore on MongoDB: one document per (organization, itemId), replaced on upsert. */
export class MongoItemStore implements ItemStore {
  private readonly items: Collection<ItemDocument>;
  private readonly legacy: Collection<Omit<ItemDocument, '_id'>>;

  constructor(db: Db) {
    this.items = db.collection<ItemDocument>(ITEMS_COLLECTION, { ignoreUndefined: true });
    this.legacy = db.collection(LEGACY_ITEMS_COLLECTION);
  }

  /** Indexes, and the catalog of the earlier layout moved over (a no-op once moved). */
  async ensureIndexes(): Promise<void> {
    await this.items.createIndex(
      { organization: 1, catalog: 1, categories: 1 },
      { name: 'organization_catalog_categories' },
    );
    await moveLegacyDocuments(this.legacy, (batch) =>
      insertMissing(
        this.items,
        batch.map(({ _id, ...item }) => ({
          ...item,
          _id: scopedKey(item.organization, item.itemId),
        })),
      ),
    );
  }

  async upsert(organization: string, items: readonly CatalogItem[]): Promise<number> {
    // The last occurrence of an id in the batch wins, as with sequential upserts.
    const latest = new Map(items.map((item) => [item.itemId, item]));
    if (latest.size === 0) return 0;
    const operations: AnyBulkWriteOperation<ItemDocument>[] = [...latest.values()].map((item) => {
      const _id = scopedKey(organization, item.itemId);
      return {
        replaceOne: {
          filter: { _id },
          replacement: { _id, ...item, categories: [...item.categories], organization },
          upsert: true,
        },
      };
    });
    await this.items.bulkWrite(operations, { ordered: false });
    return latest.size;
  }

  async get(organization: string, itemId: string): Promise<CatalogItem | undefined> {
    const document = await this.items.findOne({ _id: scopedKey(organization, itemId) });
    return document ? toItem(document) : undefined;
  }

  async getMany(
    organization: string,
    itemIds: readonly string[],
  ): Promise<Map<string, CatalogItem>> {
    const documents = await this.items
      .find({ _id: { $in: [...new Set(itemIds)].map((id) => scopedKey(organization, id)) } })
      .toArray();
    return new Map(documents.map((document) => [document.itemId, toItem(document)]));
  }

  async withCategories(
    organization: string,
    catalog: string,
    categories: readonly string[],
    limit: number,
  ): Promise<CatalogItem[]> {
    if (categories.length === 0) return [];
    const documents = await this.items
      .find({
        organization,
        catalog: catalog as CatalogItem['catalog'],
        categories: { $in: [...categories] },
      })
      .limit(limit)
      .toArray();
    return documents.map(toItem);
  }

  async browse(
    organization: string,
    catalog: string | undefined,
    limit: number,
  ): Promise<CatalogItem[]> {
    const documents = await this.items
      .find({
        organization,
        ...(catalog === undefined ? {} : { catalog: catalog as CatalogItem['catalog'] }),
        available: true,
      })
      .limit(limit)
      .toArray();
    return documents.map(toItem);
  }

  async delete(organization: string, itemId: string): Promise<boolean> {
    return (
      (await this.items.deleteOne({ _id: scopedKey(organization, itemId) })).deletedCount === 1
    );
  }
}
