import { compareIds, type CooccurrenceModel } from './cooccurrence-model';
import type { Catalog, CatalogItem } from './types';
import type { ItemStore } from '../store/item-store';

export type Reason = 'related_to_current_item' | 'co_occurrence' | 'popular';

export interface RecommendQuery {
  organization: string;
  userId: string;
  /** Item the user is viewing; unknown ids are ignored. */
  currentItemId?: string;
  count: number;
  catalog?: Catalog;
}

export interface RankedItem {
  itemId: string;
  /** 0..1; every related item scores above every personal one, which score above popular ones. */
  score: number;
  reason: Reason;
  item: CatalogItem;
}

export interface RecommendResult {
  recommendations: RankedItem[];
  /** currentItemId was given but is not in the catalog (so it was ignored). */
  currentItemIgnored: boolean;
}

/** Disjoint score ranges per reason, so scores sort the tiers in the documented order. */
const BANDS: Record<Reason, { low: number; high: number }> = {
  related_to_current_item: { low: 0.7, high: 1 },
  co_occurrence: { low: 0.35, high: 0.65 },
  popular: { low: 0, high: 0.3 },
};

/** Within the related tier, similarity to the current item dominates; personal taste reorders a little. */
const RELATED_SIMILARITY_SHARE = 0.75;

interface Candidate {
  item: CatalogItem;
  reason: Reason;
  /** Strength within its tier, 0..1 (1 for the strongest). */
  strength: number;
}

/**
 * Ranks items for one user: items related to the current item first, then items co-occurring
 * with the user's own items, then popular items (in the current item's catalog) to fill up.
 * Never returns the current item, items the user owns, unavailable, deleted or unknown items.
 */
export async function recommend(model: CooccurrenceModel, items: ItemStore, query: RecommendQuery): Promise<RecommendResult> {
  const current = query.currentItemId ? await items.get(query.organization, query.currentItemId) : undefined;
  const excluded = model.userSummary(query.userId).owned;
  if (query.currentItemId) excluded.add(query.currentItemId);
  const eligible = (item: CatalogItem, catalog = query.catalog) =>
    item.available && !excluded.has(item.itemId) && (catalog === undefined || item.catalog === catalog);

  const related = current ? model.relatedTo(current.itemId) : new Map<string, number>();
  const personal = model.personalScores(query.userId);
  const known = await items.getMany(query.organization, unionOfKeys(related, personal));
  const relatedTier = rankRelated(related, personal, known, eligible);
  const personalTier = rankPersonal(personal, known, (item) => eligible(item) && !related.has(item.itemId));

  const chosen = [...relatedTier, ...personalTier].slice(0, query.count);
  const missing = query.count - chosen.length;
  if (missing > 0) {
    const taken = new Set(chosen.map((c) => c.item.itemId));
    const fillCatalog = query.catalog ?? current?.catalog;
    const popularTier = await rankPopular(model, items, query.organization, missing, (item) =>
      eligible(item, fillCatalog) && !taken.has(item.itemId),
    );
    chosen.push(...popularTier);
  }
  return { recommendations: toRanked(chosen), currentItemIgnored: Boolean(query.currentItemId) && !current };
}

function unionOfKeys(a: Map<string, number>, b: Map<string, number>): string[] {
  return [...new Set([...a.keys(), ...b.keys()])];
}

function rankRelated(
  related: Map<string, number>,
  personal: Map<string, number>,
  known: Map<string, CatalogItem>,
  eligible: (item: CatalogItem) => boolean,
): Candidate[] {
  const maxSimilarity = maxOf(related.values());
  const maxPersonal = maxOf(personal.values());
  const raw: Array<{ item: CatalogItem; value: number }> = [];
  for (const [itemId, similarity] of related) {
    const item = known.get(itemId);
    if (!item || !eligible(item) || similarity <= 0) continue;
    const taste = maxPersonal > 0 ? Math.max(0, personal.get(itemId) ?? 0) / maxPersonal : 0;
    const value = RELATED_SIMILARITY_SHARE * (similarity / maxSimilarity) + (1 - RELATED_SIMILARITY_SHARE) * taste;
    raw.push({ item, value });
  }
  return normalise(raw, 'related_to_current_item');
}

function rankPersonal(
  personal: Map<string, number>,
  known: Map<string, CatalogItem>,
  eligible: (item: CatalogItem) => boolean,
): Candidate[] {
  const raw: Array<{ item: CatalogItem; value: number }> = [];
  for (const [itemId, score] of personal) {
    const item = known.get(itemId);
    // A net negative score means the user's dislikes outweigh their likes for this neighbourhood.
    if (item && score > 0 && eligible(item)) raw.push({ item, value: score });
  }
  return normalise(raw, 'co_occurrence');
}

/** Walks the popularity ranking in chunks, so only as many items are fetched as needed. */
async function rankPopular(
  model: CooccurrenceModel,
  items: ItemStore,
  organization: string,
  wanted: number,
  eligible: (item: CatalogItem) => boolean,
): Promise<Candidate[]> {
  const ranking = model.popularItems();
  const chunk = Math.max(50, wanted * 2);
  const raw: Array<{ item: CatalogItem; value: number }> = [];
  for (let start = 0; start < ranking.length && raw.length < wanted; start += chunk) {
    const ids = ranking.slice(start, start + chunk);
    const found = await items.getMany(organization, ids);
    for (const id of ids) {
      const item = found.get(id);
      if (item && eligible(item)) raw.push({ item, value: model.popularityOf(id) });
      if (raw.length === wanted) break;
    }
  }
  return normalise(raw, 'popular');
}

/** Scales values to (0, 1] by the tier's maximum and orders them strongest first. */
function normalise(raw: Array<{ item: CatalogItem; value: number }>, reason: Reason): Candidate[] {
  const max = maxOf(raw.map((r) => r.value));
  return raw
    .map((r) => ({ item: r.item, reason, strength: max > 0 ? r.value / max : 0 }))
    .sort((a, b) => b.strength - a.strength || compareIds(a.item.itemId, b.item.itemId));
}

function toRanked(candidates: Candidate[]): RankedItem[] {
  return candidates
    .map((c) => {
      const band = BANDS[c.reason];
      const score = Math.round((band.low + (band.high - band.low) * c.strength) * 1e6) / 1e6;
      return { itemId: c.item.itemId, score, reason: c.reason, item: c.item };
    })
    .sort((a, b) => b.score - a.score || compareIds(a.itemId, b.itemId));
}

function maxOf(values: Iterable<number>): number {
  let max = 0;
  for (const value of values) if (value > max) max = value;
  return max;
}
