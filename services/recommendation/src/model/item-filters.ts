import type { Catalog, CatalogItem } from './types';

/** What the request asks for, beyond what the data rules out anyway. */
export interface RequestFilters {
  catalog?: Catalog;
  /** At least one of these categories (empty: any). */
  categories: string[];
  minPrice?: number;
  maxPrice?: number;
  /** Diversity: at most this many items per category (0: no limit). */
  maxPerCategory: number;
}

interface ItemFacts {
  price?: number;
  /** Epoch ms after which the item is over (an event that took place, a course that ended). */
  endsAt?: number;
}

/** attributes.endsAt / endDate, else startsAt / date (an event without an end is over once it began). */
const END_ATTRIBUTES = ['endsAt', 'endDate', 'startsAt', 'date'];

/** Facts per catalog entry, parsed once: cached entries are the same objects call after call. */
const factsOf = new WeakMap<CatalogItem, ItemFacts>();

export function itemFacts(item: CatalogItem): ItemFacts {
  let facts = factsOf.get(item);
  if (!facts) {
    facts = parseFacts(item);
    factsOf.set(item, facts);
  }
  return facts;
}

function parseFacts(item: CatalogItem): ItemFacts {
  let attributes: Record<string, unknown>;
  try {
    attributes = JSON.parse(item.attributesJson) as Record<string, unknown>;
  } catch {
    return {};
  }
  const facts: ItemFacts = {};
  if (typeof attributes.price === 'number') facts.price = attributes.price;
  for (const name of END_ATTRIBUTES) {
    const value = attributes[name];
    const at = typeof value === 'string' ? Date.parse(value) : NaN;
    if (!Number.isNaN(at)) {
      facts.endsAt = at;
      break;
    }
  }
  return facts;
}

/** Data rules (never recommended, whatever the request) and the request's filters. */
export function passes(item: CatalogItem, filters: RequestFilters, now: number): boolean {
  if (!item.available) return false;
  if (filters.catalog !== undefined && item.catalog !== filters.catalog) return false;
  if (filters.categories.length > 0 && !item.categories.some((c) => filters.categories.includes(c)))
    return false;
  const facts = itemFacts(item);
  if (facts.endsAt !== undefined && facts.endsAt < now) return false;
  if (filters.minPrice !== undefined || filters.maxPrice !== undefined) {
    if (facts.price === undefined) return false;
    if (filters.minPrice !== undefined && facts.price < filters.minPrice) return false;
    if (filters.maxPrice !== undefined && facts.price > filters.maxPrice) return false;
  }
  return true;
}

/** Counts chosen items per category; an item fits while none of its categories is full. */
export class DiversityCap {
  private readonly counts = new Map<string, number>();

  constructor(private readonly maxPerCategory: number) {}

  fits(item: CatalogItem): boolean {
    return (
      this.maxPerCategory <= 0 ||
      item.categories.every((c) => (this.counts.get(c) ?? 0) < this.maxPerCategory)
    );
  }

  take(item: CatalogItem): void {
    for (const c of item.categories) this.counts.set(c, (this.counts.get(c) ?? 0) + 1);
  }
}

/** Metadata likeness of two items: shared categories (Jaccard) and shared title words. */
export function metadataSimilarity(a: CatalogItem, b: CatalogItem): number {
  return (
    0.7 * jaccard(a.categories, b.categories) +
    0.3 * jaccard(titleWords(a.title), titleWords(b.title))
  );
}

function titleWords(title: string): string[] {
  return title
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 2);
}

function jaccard(a: readonly string[], b: readonly string[]): number {
  if (a.length === 0 || b.length === 0) return 0;
  const setA = new Set(a);
  const setB = new Set(b);
  let shared = 0;
  for (const x of setA) if (setB.has(x)) shared++;
  return shared / (setA.size + setB.size - shared);
}
