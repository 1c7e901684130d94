import type { CatalogItem } from '../../model/types';
import type { ItemStore } from './port';

export class InMemoryItemStore implements ItemStore {
  private readonly byOrganization = new Map<string, Map<string, CatalogItem>>();

  async upsert(organization: string, items: readonly CatalogItem[]): Promise<number> {
    const catalog = this.catalogOf(organization);
    const written = new Set<string>();
    for (const item of items) {
      catalog.set(item.itemId, cloneItem(item));
      written.add(item.itemId);
    }
    return written.size;
  }

  async get(organization: string, itemId: string): Promise<CatalogItem | undefined> {
    const item = this.byOrganization.get(organization)?.get(itemId);
    return item && cloneItem(item);
  }

  async getMany(
    organization: string,
    itemIds: readonly string[],
  ): Promise<Map<string, CatalogItem>> {
    const catalog = this.byOrganization.get(organization);
    const found = new Map<string, CatalogItem>();
    if (!catalog) return found;
    for (const id of itemIds) {
      const item = catalog.get(id);
      if (item) found.set(id, cloneItem(item));
    }
    return found;
  }

  async withCategories(
    organization: string,
    catalog: string,
    categories: readonly string[],
    limit: number,
  ): Promise<CatalogItem[]> {
    const found: CatalogItem[] = [];
    if (categories.length === 0) return found;
    for (const item of this.byOrganization.get(organization)?.values() ?? []) {
      if (found.length === limit) break;
      if (item.catalog === catalog && item.categories.some((c) => categories.includes(c)))
        found.push(cloneItem(item));
    }
    return found;
  }

  async browse(
    organization: string,
    catalog: string | undefined,
    limit: number,
  ): Promise<CatalogItem[]> {
    const found: CatalogItem[] = [];
    for (const item of this.byOrganization.get(organization)?.values() ?? []) {
      if (found.length === limit) break;
      if (item.available && (catalog === undefined || item.catalog === catalog))
        found.push(cloneItem(item));
    }
    return found;
  }

  async delete(organization: string, itemId: string): Promise<boolean> {
    return this.byOrganization.get(organization)?.delete(itemId) ?? false;
  }

  private catalogOf(organization: string): Map<string, CatalogItem> {
    let catalog = this.byOrganization.get(organization);
    if (!catalog) {
      catalog = new Map();
      this.byOrganization.set(organization, catalog);
    }
    return catalog;
  }
}

/** Callers get copies, as they would from a database: mutating one never changes the store. */
function cloneItem(item: CatalogItem): CatalogItem {
  return { ...item, categories: [...item.categories] };
}
