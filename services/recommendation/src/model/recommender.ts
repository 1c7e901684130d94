import { DiversityCap, metadataSimilarity, passes, type RequestFilters } from './item-filters';
import type { ItemModel, RankedIndexes } from './item-model';
import type { CatalogItem } from './types';
import type { Taste, UserProfile } from './user-profiles';
import type { ItemStore } from '../store/items/port';

export type Reason =
  'related_to_current_item' | 'similar_to_current_item' | 'co_occurrence' | 'popular' | 'catalog';

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

type Band = 'related' | 'personal' | 'popular';

/** Disjoint score ranges per tier, so scores sort the tiers in the documented order. */
const BANDS: Record<Band, { low: number; high: number }> = {
  related: { low: 0.7, high: 1 },
  personal: { low: 0.35, high: 0.65 },
  popular: { low: 0, high: 0.3 },
};

/** Within the related tier, similarity to the current item dominates; the user's taste reorders a little. */
const RELATED_SIMILARITY_SHARE = 0.75;
/** Related items re-ranked by taste: the head of the row is what gets shown. */
const RELATED_HEAD = 100;
/** A profile keeps its best-scored items only: bounded memory per cached user, and more than any page needs. */
const PERSONAL_KEPT = 500;
/** Items sharing a category with a current item the model does not know, looked at for metadata likeness. */
const METADATA_CANDIDATES = 200;
/** Catalog items looked at when nothing else fills the answer (no interaction recorded yet). */
const CATALOG_CANDIDATES = 200;

interface Candidate {
  itemId: string;
  reason: Reason;
  /** Strength within its tier, 0..1 (1 for the strongest). */
  strength: number;
}

/** A tier's candidates, best first, materialised a slice at a time. */
interface CandidateList {
  length: number;
  slice(start: number, end: number): Candidate[];
}

const EMPTY: CandidateList = { length: 0, slice: () => [] };

function fromRanked(model: ItemModel, ranked: RankedIndexes, reason: Reason): CandidateList {
  return {
    length: ranked.order.length,
    slice: (start, end) =>
      Array.from(ranked.order.subarray(start, end), (i, k) => ({
        itemId: model.itemId(i),
        reason,
        strength: ranked.strength[start + k],
      })),
  };
}

function fromArray(candidates: Candidate[]): CandidateList {
  return { length: candidates.length, slice: (start, end) => candidates.slice(start, end) };
}

/**
 * Ranks items for one user: items like the current item first (the model's row, or metadata for
 * an item the model does not know yet), then the model's scores for the user's items, then
 * popular items to fill up (the model's popularity, or before the organization's first model
 * `beforeModel`, the popularity of what this replica recorded), then, when even that leaves
 * the answer short (no interaction recorded yet), other catalog items. Never returns the current
 * item, items the user owns, unavailable, past, deleted or filtered-out items.
 */
export async function recommend(
  model: ItemModel | undefined,
  profile: UserProfile,
  items: ItemStore,
  query: RecommendQuery,
  beforeModel: ReadonlyArray<{ itemId: string; weight: number }> = [],
): Promise<RecommendResult> {
  const current = query.currentItemId
    ? await items.get(query.organization, query.currentItemId)
    : undefined;
  // Owned items and the current one never come back (a check, not a copy of the user's items).
  const excluded = (itemId: string) => itemId === query.currentItemId || profile.owned.has(itemId);
  const scored = model && profile.weights.size > 0 ? scoreProfile(model, profile) : undefined;
  const related = current
    ? await relatedCandidates(model, scored && tasteOf(scored), items, query.organization, current)
    : EMPTY;
  const personal = model && scored ? fromRanked(model, scored.ranked, 'co_occurrence') : EMPTY;
  const popular = model ? popularCandidates(model) : tallyCandidates(beforeModel);
  // The popular fill stays in the current item's catalog unless the request names one.
  const fillFilters = { ...query.filters, catalog: query.filters.catalog ?? current?.catalog };

  const chosen: RankedItem[] = [];
  const taken = new Set<string>();
  const diversity = new DiversityCap(query.filters.maxPerCategory);
  const fill = async (candidates: CandidateList, band: Band, filters: RequestFilters) => {
    const wanted = query.count - chosen.length;
    if (wanted <= 0) return;
    const accept = (item: CatalogItem) =>
      !excluded(item.itemId) &&
      !taken.has(item.itemId) &&
      passes(item, filters, query.now) &&
      diversity.fits(item);
    for (const { candidate, item } of await firstAccepted(
      items,
      query.organization,
      candidates,
      wanted,
      accept,
      diversity,
    )) {
      taken.add(item.itemId);
      chosen.push(toRanked(candidate, item, band));
    }
  };
  await fill(related, 'related', query.filters);
  await fill(personal, 'personal', query.filters);
  await fill(popular, 'popular', fillFilters);
  if (chosen.length < query.count && popular.length === 0) {
    // Nothing recorded yet: any of the catalog's items rather than an empty answer.
    const browsed = await items.browse(query.organization, fillFilters.catalog, CATALOG_CANDIDATES);
    await fill(
      fromArray(browsed.map((item) => ({ itemId: item.itemId, reason: 'catalog', strength: 1 }))),
      'popular',
      fillFilters,
    );
  }
  return { recommendations: chosen, currentItemIgnored: Boolean(query.currentItemId) && !current };
}

type Scored = NonNullable<UserProfile['scored']>;

/**
 * x_u W for the profile, ranked, its head kept; computed once per profile and model version. Owned
 * items are left out here, not only refused later: a user who owns hundreds of the top-scored
 * items would otherwise walk chunk after chunk of them, each read from the item store, per call.
 */
function scoreProfile(model: ItemModel, profile: UserProfile): Scored {
  if (profile.scored?.version !== model.data.version) {
    profile.scored = {
      version: model.data.version,
      ranked: model.rankUser(profile.weights, PERSONAL_KEPT, profile.owned),
    };
  }
  return profile.scored;
}

/** The user's scaled score by item index (0 past the kept head), built when first needed. */
function tasteOf(scored: Scored): Taste {
  scored.taste ??= byIndex(scored.ranked);
  return scored.taste;
}

/**
 * The kept scores ordered by item index, for binary search: two typed arrays per cached profile
 * (a Map of 500 boxed numbers per user was garbage the collector had to trace, user after user).
 */
function byIndex(ranked: RankedIndexes): Taste {
  const order = new Int32Array(ranked.order.length).map((_, k) => k);
  order.sort((a, b) => ranked.order[a] - ranked.order[b]);
  return {
    indexes: Int32Array.from(order, (k) => ranked.order[k]),
    strength: Float32Array.from(order, (k) => ranked.strength[k]),
  };
}

/** The user's scaled score of the item index, 0 when it is not among the kept ones. */
function tasteFor(taste: Taste, index: number): number {
  let low = 0;
  let high = taste.indexes.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const at = taste.indexes[middle];
    if (at === index) return taste.strength[middle];
    if (at < index) low = middle + 1;
    else high = middle - 1;
  }
  return 0;
}

/** The model's row for the current item (its head re-ranked by the user's taste), else metadata likeness. */
async function relatedCandidates(
  model: ItemModel | undefined,
  taste: Taste | undefined,
  items: ItemStore,
  organization: string,
  current: CatalogItem,
): Promise<CandidateList> {
  const row = model?.rankedRelated(current.itemId);
  if (model && row && row.order.length > 0) {
    // The row is ranked and scaled at training time; only the user's taste re-ranks its head.
    return taste
      ? rerankedByTaste(model, row, taste)
      : fromRanked(model, row, 'related_to_current_item');
  }
  // A new item: what shares its categories and title words.
  const similar: Candidate[] = [];
  for (const other of await items.withCategories(
    organization,
    current.catalog,
    current.categories,
    METADATA_CANDIDATES,
  )) {
    const likeness = metadataSimilarity(current, other);
    if (likeness > 0 && other.itemId !== current.itemId)
      similar.push({ itemId: other.itemId, reason: 'similar_to_current_item', strength: likeness });
  }
  return fromArray(normalise(similar));
}

/**
 * The row's head re-ranked by blending in the user's taste, the rest as ranked at training time.
 * Typed arrays and candidates built only for the slices asked for: little garbage per call.
 */
function rerankedByTaste(model: ItemModel, row: RankedIndexes, taste: Taste): CandidateList {
  const reason: Reason = 'related_to_current_item';
  const ids = model.data.itemIds;
  const head = Math.min(RELATED_HEAD, row.order.length);
  const blended = new Float64Array(head);
  for (let k = 0; k < head; k++) {
    blended[k] =
      RELATED_SIMILARITY_SHARE * row.strength[k] +
      (1 - RELATED_SIMILARITY_SHARE) * tasteFor(taste, row.order[k]);
  }
  const byBlend = new Int32Array(head).map((_, k) => k);
  byBlend.sort(
    (a, b) => blended[b] - blended[a] || compareIds(ids[row.order[a]], ids[row.order[b]]),
  );
  const top = blended[byBlend[0]];
  const rest = fromRanked(model, row, reason);
  return {
    length: row.order.length,
    slice: (start, end) => {
      const candidates: Candidate[] = [];
      for (let k = start; k < Math.min(end, head); k++) {
        const h = byBlend[k];
        candidates.push({ itemId: ids[row.order[h]], reason, strength: blended[h] / top });
      }
      if (end > head) candidates.push(...rest.slice(Math.max(start, head), end));
      return candidates;
    },
  };
}

/** Before the organization's first model: the replica's tally, as candidates. */
function tallyCandidates(ranked: ReadonlyArray<{ itemId: string; weight: number }>): CandidateList {
  if (ranked.length === 0) return EMPTY;
  const top = ranked[0].weight;
  return {
    length: ranked.length,
    slice: (start, end) =>
      ranked.slice(start, end).map(({ itemId, weight }) => ({
        itemId,
        reason: 'popular' as const,
        strength: weight / top,
      })),
  };
}

/** The model's popularity ranking as candidates, made a slice at a time. */
function popularCandidates(model: ItemModel): CandidateList {
  const order = model.popular();
  if (order.length === 0) return EMPTY;
  const top = model.popularity(order[0]);
  return {
    length: order.length,
    slice: (start, end) => {
      const candidates: Candidate[] = [];
      for (let k = start; k < Math.min(end, order.length); k++)
        candidates.push({
          itemId: model.itemId(order[k]),
          reason: 'popular',
          strength: model.popularity(order[k]) / top,
        });
      return candidates;
    },
  };
}

/**
 * Walks candidates best first, fetching their catalog entries in chunks, until `wanted` pass.
 * Chunks keep the store reads small when most candidates pass, as they usually do.
 */
async function firstAccepted(
  items: ItemStore,
  organization: string,
  candidates: CandidateList,
  wanted: number,
  accept: (item: CatalogItem) => boolean,
  diversity: DiversityCap,
): Promise<Array<{ candidate: Candidate; item: CatalogItem }>> {
  const accepted: Array<{ candidate: Candidate; item: CatalogItem }> = [];
  const chunk = Math.max(16, wanted * 2);
  for (let start = 0; start < candidates.length && accepted.length < wanted; start += chunk) {
    const slice = candidates.slice(start, start + chunk);
    const found = await items.getMany(
      organization,
      slice.map((c) => c.itemId),
    );
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

function toRanked(candidate: Candidate, item: CatalogItem, band: Band): RankedItem {
  const { low, high } = BANDS[band];
  const score = Math.round((low + (high - low) * candidate.strength) * 1e6) / 1e6;
  return { itemId: item.itemId, score, reason: candidate.reason, item };
}

/** Code-unit order, so ties break the same way on every platform and locale. */
export function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
