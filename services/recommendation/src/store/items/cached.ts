import { scopedKey as key, type CatalogItem } from '../../model/types';
import type { ItemStore } from './port';

/**
 * Catalog reads served from memory once fetched, so a warm recommendation does not wait on the
 * database. Writes through this replica drop the entries at once; writes through other replicas
 * arrive as catalog.changed events (invalidate). Bounded; the oldest entry goes first.
 */
export class CachedItemStore implements ItemStore {
  private readonly cache = new Map<string, CatalogItem | null>();
  /** Reads under way; an invalidation removes the token so a stale read is not cached. */
  private readonly loading = new Map<string, symbol>();

  constructor(
    private readonly store: ItemStore,
    private readonly maxEntries: number,
  ) {}

  async upsert(organization: string, items: readonly CatalogItem[]): Promise<number> {
    const written = await this.store.upsert(organization, items);
    this.invalidate(
      organization,
      items.map((i) => i.itemId),
    );
    return written;
  }

  async get(organization: string, itemId: string): Promise<CatalogItem | undefined> {
    return (await this.getMany(organization, [itemId])).get(itemId);
  }

  async getMany(
    organization: string,
    itemIds: readonly string[],
  ): Promise<Map<string, CatalogItem>> {
    const found = new Map<string, CatalogItem>();
    const missing: string[] = [];
    for (const id of itemIds) {
      const cached = this.cache.get(key(organization, id));
      if (cached === undefined) missing.push(id);
      else if (cached !== null) found.set(id, cached);
    }
    if (missing.length === 0) return found;
    const tokens = missing.map((id) => {
      const token = Symbol(id);
      this.loading.set(key(organization, id), token);
      return token;
    });
    const fetched = await this.store.getMany(organization, missing);
    missing.forEach((id, k) => {
      const item = fetched.get(id);
      if (item) found.set(id, item);
      const cacheKey = key(organization, id);
      if (this.loading.get(cacheKey) !== tokens[k]) return;
      this.loading.delete(cacheKey);
      // Unknown ids are remembered too (null): recommendations ask for them again and again.
      this.remember(cacheKey, item ?? null);
    });
    return found;
  }

  withCategories(
    organization: string,
    catalog: string,
    categories: readonly string[],
    limit: number,
  ): Promise<CatalogItem[]> {
    return this.store.withCategories(organization, catalog, categories, limit);
  }

  browse(organization: string, catalog: string | undefined, limit: number): Promise<CatalogItem[]> {
    return this.store.browse(organization, catalog, limit);
  }

  async delete(organization: string, itemId: string): Promise<boolean> {
    const deleted = await this.store.delete(organization, itemId);
    this.invalidate(organization, [itemId]);
    return deleted;
  }

  invalidate(organization: string, itemIds: Iterable<string>): void {
    for (const id of itemIds) {
      this.cache.delete(key(organization, id));
      this.loading.delete(key(organization, id));
    }
  }

  private remember(cacheKey: string, item: CatalogItem | null): void {
    if (this.cache.size >= this.maxEntries) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(cacheKey, item);
  }
}
