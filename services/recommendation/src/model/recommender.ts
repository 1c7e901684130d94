import { DiversityCap, metadataSimilarity, passes, type RequestFilters } from './item-filters';
import type { ItemModel } from './item-model';
import type { CatalogItem } from './types';
import type { UserProfile } from './user-profiles';
import type { ItemStore } from '../store/item-store';

export type Reason = 'related_to_current_item' | 'similar_to_current_item' | 'co_occurrence' | 'popular';

export interface RecommendQuery {
  organization: string;
  userId: string;
  /** Item the user is viewing; unknown ids are ignored. */
  currentItemId?: string;
  count: number;
  filters: RequestFilters;
  /** Epoch ms: events before it are over. */
  now: number;
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

/** Disjoint score ranges per tier, so scores sort the tiers in the documented order. */
const BANDS: Record<'related' | 'personal' | 'popular', { low: number; high: number }> = {
  related: { low: 0.7, high: 1 },
  personal: { low: 0.35, high: 0.65 },
  popular: { low: 0, high: 0.3 },
};

/** Within the related tier: the model's similarity, metadata likeness, the user's own taste. */
const RELATED_MIX = { model: 0.6, metadata: 0.25, taste: 0.15 };
/** Items sharing a category with the current item, looked at for metadata likeness. */
const METADATA_CANDIDATES = 200;

interface Candidate {
  itemId: string;
  reason: Reason;
  /** Strength within its tier, 0..1 (1 for the strongest). */
  strength: number;
}

/**
 * Ranks items for one user: items like the current item first (model and metadata), then the
 * model's scores for the user's items, then popular items to fill up. Never returns the current
 * item, items the user owns, unavailable, past, deleted or filtered-out items.
 */
export async function recommend(
  model: ItemModel | undefined,
  profile: UserProfile,
  items: ItemStore,
  query: RecommendQuery,
): Promise<RecommendResult> {
  const current = query.currentItemId ? await items.get(query.organization, query.currentItemId) : undefined;
  const excluded = new Set(profile.owned);
  if (query.currentItemId) excluded.add(query.currentItemId);
  const personal = model && profile.weights.size > 0 ? model.scoreUser(profile.weights) : undefined;
  const related = current ? await relatedCandidates(model, personal, items, query.organization, current) : [];
  const personalTier = personal && model ? ranked(model, personal, 'co_occurrence') : [];
  const popularTier = model ? popularCandidates(model) : [];
  // The popular fill stays in the current item's catalog unless the request names one.
  const fillFilters = { ...query.filters, catalog: query.filters.catalog ?? current?.catalog };

  const chosen: Array<{ candidate: Candidate; item: CatalogItem; band: keyof typeof BANDS }> = [];
  const taken = new Set<string>();
  const diversity = new DiversityCap(query.filters.maxPerCategory);
  const tiers: Array<[Candidate[], keyof typeof BANDS, RequestFilters]> = [
    [related, 'related', query.filters],
    [personalTier, 'personal', query.filters],
    [popularTier, 'popular', fillFilters],
  ];
  for (const [candidates, band, filters] of tiers) {
    const wanted = query.count - chosen.length;
    if (wanted <= 0) break;
    const accept = (item: CatalogItem) =>
      !excluded.has(item.itemId) && !taken.has(item.itemId) && passes(item, filters, query.now) && diversity.fits(item);
    for (const { candidate, item } of await firstAccepted(items, query.organization, candidates, wanted, accept, diversity)) {
      taken.add(item.itemId);
      chosen.push({ candidate, item, band });
    }
  }
  return { recommendations: chosen.map(toRanked), currentItemIgnored: Boolean(query.currentItemId) && !current };
}

/** The model's row for the current item blended with metadata likeness and the user's taste. */
async function relatedCandidates(
  model: ItemModel | undefined,
  personal: Float64Array | undefined,
  items: ItemStore,
  organization: string,
  current: CatalogItem,
): Promise<Candidate[]> {
  const value = new Map<string, { model: number; metadata: number; taste: number }>();
  const entry = (id: string) => value.get(id) ?? value.set(id, { model: 0, metadata: 0, taste: 0 }).get(id)!;
  if (model && model.index(current.itemId) !== undefined) {
    const row = model.related(current.itemId);
    const top = maxOf(row);
    const topTaste = personal ? maxOf(personal) : 0;
    row.forEach((similarity, i) => {
      if (similarity <= 0) return;
      const e = entry(model.itemId(i));
      e.model = similarity / top;
      if (personal && topTaste > 0) e.taste = Math.max(0, personal[i]) / topTaste;
    });
  }
  for (const other of await items.withCategories(organization, current.catalog, current.categories, METADATA_CANDIDATES)) {
    const likeness = metadataSimilarity(current, other);
    if (likeness > 0 && other.itemId !== current.itemId) entry(other.itemId).metadata = likeness;
  }
  const candidates: Candidate[] = [];
  for (const [itemId, v] of value) {
    const strength = RELATED_MIX.model * v.model + RELATED_MIX.metadata * v.metadata + RELATED_MIX.taste * v.taste;
    const reason = v.model > 0 ? 'related_to_current_item' : 'similar_to_current_item';
    candidates.push({ itemId, reason, strength });
  }
  return normalise(candidates);
}

/** Positive scores, strongest first, scaled to (0, 1]. */
function ranked(model: ItemModel, scores: Float64Array, reason: Reason): Candidate[] {
  const candidates: Candidate[] = [];
  scores.forEach((score, i) => {
    if (score > 0) candidates.push({ itemId: model.itemId(i), reason, strength: score });
  });
  return normalise(candidates);
}

const popularByModel = new WeakMap<ItemModel, Candidate[]>();

/** The model's popularity ranking as candidates, computed once per loaded model. */
function popularCandidates(model: ItemModel): Candidate[] {
  let candidates = popularByModel.get(model);
  if (!candidates) {
    const ranking = model.popular();
    const top = ranking.length > 0 ? model.popularity(ranking[0]) : 0;
    candidates = ranking.map((i) => ({ itemId: model.itemId(i), reason: 'popular' as const, strength: model.popularity(i) / top }));
    popularByModel.set(model, candidates);
  }
  return candidates;
}

/**
 * Walks candidates best first, fetching their catalog entries in chunks, until `wanted` pass.
 * Chunks keep the store reads small when most candidates pass, as they usually do.
 */
async function firstAccepted(
  items: ItemStore,
  organization: string,
  candidates: Candidate[],
  wanted: number,
  accept: (item: CatalogItem) => boolean,
  diversity: DiversityCap,
): Promise<Array<{ candidate: Candidate; item: CatalogItem }>> {
  const accepted: Array<{ candidate: Candidate; item: CatalogItem }> = [];
  const chunk = Math.max(32, wanted * 3);
  for (let start = 0; start < candidates.length && accepted.length < wanted; start += chunk) {
    const slice = candidates.slice(start, start + chunk);
    const found = await items.getMany(organization, slice.map((c) => c.itemId));
    for (const candidate of slice) {
      const item = found.get(candidate.itemId);
      if (!item || !accept(item)) continue;
      diversity.take(item);
      accepted.push({ candidate, item });
      if (accepted.length === wanted) break;
    }
  }
  return accepted;
}

/** Scales strengths to (0, 1] by the maximum and orders them strongest first, ties by id. */
function normalise(candidates: Candidate[]): Candidate[] {
  const top = candidates.reduce((max, c) => Math.max(max, c.strength), 0);
  return candidates
    .filter((c) => c.strength > 0)
    .map((c) => ({ ...c, strength: c.strength / top }))
    .sort((a, b) => b.strength - a.strength || compareIds(a.itemId, b.itemId));
}

function toRanked(entry: { candidate: Candidate; item: CatalogItem; band: keyof typeof BANDS }): RankedItem {
  const band = BANDS[entry.band];
  const score = Math.round((band.low + (band.high - band.low) * entry.candidate.strength) * 1e6) / 1e6;
  return { itemId: entry.item.itemId, score, reason: entry.candidate.reason, item: entry.item };
}

function maxOf(values: Float64Array): number {
  let max = 0;
  for (const v of values) if (v > max) max = v;
  return max;
}

/** Code-unit order, so ties break the same way on every platform and locale. */
export function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
