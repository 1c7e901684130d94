import type { CatalogItem } from '../../model/types';

/** Catalog items per organization. Async so a MongoDB implementation can replace the in-memory one. */
export interface ItemStore {
  /** Inserts or replaces by item id (idempotent); returns how many distinct ids were written. */
  upsert(organization: string, items: readonly CatalogItem[]): Promise<number>;
  get(organization: string, itemId: string): Promise<CatalogItem | undefined>;
  /** The known items among itemIds; unknown ids are left out. */
  getMany(organization: string, itemIds: readonly string[]): Promise<Map<string, CatalogItem>>;
  /** Up to `limit` items of the catalog sharing at least one category (candidates for cold items). */
  withCategories(
    organization: string,
    catalog: string,
    categories: readonly string[],
    limit: number,
  ): Promise<CatalogItem[]>;
  /**
   * Up to `limit` available items of the organization (of one catalog when given), in no
   * particular order: what to show when nothing was recorded yet.
   */
  browse(organization: string, catalog: string | undefined, limit: number): Promise<CatalogItem[]>;
  /** false when the organization has no such item. */
  delete(organization: string, itemId: string): Promise<boolean>;
}
