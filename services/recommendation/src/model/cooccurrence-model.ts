import { implicitWeight, marksOwnership, ratingWeight } from './interaction-weights';
import type { UserInteraction } from './types';

/** What one user has done with one item. */
interface UserItemState {
  /** Sum of implicit signals (views, clicks, purchases...). */
  implicit: number;
  /** Latest rating's weight; a new rating replaces the old one instead of adding to it. */
  rating: number;
  ratingAt: number;
  owned: boolean;
}

export interface UserSummary {
  /** The user has at least one recorded interaction. */
  known: boolean;
  /** Items the user already has (purchased, ticketed, enrolled, completed or rated). */
  owned: Set<string>;
}

export interface ModelStats {
  users: number;
  items: number;
  /** Distinct item pairs with a co-occurrence count. */
  pairs: number;
  interactions: number;
}

function weightOf(state: UserItemState): number {
  return state.implicit + state.rating;
}

/**
 * Incremental item-item co-occurrence model of one organization.
 * Co-occurrence counts how many users interacted with both items (any interaction type: a
 * disliked item still tells which items go together). A user's item set only grows, and when it
 * grows by one item only the counts between that item and the user's other items change, so an
 * interaction costs O(size of the user's set) and no request ever recomputes the model.
 * Similarity is the cosine over binary user vectors: co(i,j) / sqrt(holders(i) * holders(j)).
 * The interaction weights (and so dislikes) enter when scoring a user, and in popularity.
 */
export class CooccurrenceModel {
  /**
   * Neighbours per user item used when scoring a user: only the most similar ones. On
   * MovieLens-100k (leave-last-out) 20 gave a clearly better hit rate than 50, 100 or all.
   */
  constructor(private readonly neighbourhoodSize = 20) {}

  /** Item ids are interned to small integers: compact maps and array-indexed accumulators. */
  private readonly ids: string[] = [];
  private readonly indexOf = new Map<string, number>();
  private readonly users = new Map<string, Map<number, UserItemState>>();
  private readonly cooc = new Map<number, Map<number, number>>();
  /** Users who interacted with the item, by item index. */
  private readonly holders: number[] = [];
  /** Sum of the positive user weights, by item index. */
  private readonly popularity: number[] = [];
  private popularityRanking: string[] | undefined;
  private pairCount = 0;
  private interactionCount = 0;

  apply(interaction: UserInteraction): void {
    const item = this.intern(interaction.itemId);
    const items = this.userItems(interaction.userId);
    const existing = items.get(item);
    const state = existing ?? { implicit: 0, rating: 0, ratingAt: -Infinity, owned: false };
    const before = weightOf(state);
    if (interaction.type === 'rating') {
      // Ratings arriving out of order must not overwrite a newer one.
      if (interaction.timestamp >= state.ratingAt) {
        state.rating = ratingWeight(interaction.value);
        state.ratingAt = interaction.timestamp;
      }
    } else {
      state.implicit += implicitWeight(interaction.type);
    }
    if (marksOwnership(interaction.type)) state.owned = true;
    this.interactionCount++;
    if (!existing) {
      this.joinUserSet(items, item);
      items.set(item, state);
    }
    this.updatePopularity(item, before, weightOf(state));
  }

  userSummary(userId: string): UserSummary {
    const items = this.users.get(userId);
    const owned = new Set<string>();
    if (items) {
      for (const [item, state] of items) if (state.owned) owned.add(this.ids[item]);
    }
    return { known: items !== undefined && items.size > 0, owned };
  }

  /**
   * Personal score of every item co-occurring with the user's items:
   * sum over the user's items i of similarity(i, candidate) * weight(user, i), where the
   * candidates of i are its neighbourhoodSize most similar items.
   * Disliked items (negative weight) lower the score of items similar to them.
   */
  personalScores(userId: string): Map<string, number> {
    const items = this.users.get(userId);
    if (!items) return new Map();
    const sums = new Float64Array(this.ids.length);
    const seen = new Uint8Array(this.ids.length);
    const touched: number[] = [];
    for (const [item, state] of items) {
      const weight = weightOf(state);
      if (weight === 0) continue;
      for (const [other, similarity] of this.mostSimilar(item)) {
        if (seen[other] === 0) {
          seen[other] = 1;
          touched.push(other);
        }
        sums[other] += weight * similarity;
      }
    }
    const scores = new Map<string, number>();
    for (const other of touched) scores.set(this.ids[other], sums[other]);
    return scores;
  }

  /** Similarity of every item co-occurring with itemId (empty when the item is unknown). */
  relatedTo(itemId: string): Map<string, number> {
    const item = this.indexOf.get(itemId);
    const related = new Map<string, number>();
    const neighbours = item === undefined ? undefined : this.cooc.get(item);
    if (item === undefined || !neighbours) return related;
    for (const [other, count] of neighbours) related.set(this.ids[other], this.cosine(item, other, count));
    return related;
  }

  similarity(a: string, b: string): number {
    const ia = this.indexOf.get(a);
    const ib = this.indexOf.get(b);
    if (ia === undefined || ib === undefined) return 0;
    const count = this.cooc.get(ia)?.get(ib) ?? 0;
    return count === 0 ? 0 : this.cosine(ia, ib, count);
  }

  popularityOf(itemId: string): number {
    const item = this.indexOf.get(itemId);
    return item === undefined ? 0 : this.popularity[item];
  }

  /** Items with popularity > 0, most popular first, ties by item id; cached until the next change. */
  popularItems(): readonly string[] {
    if (!this.popularityRanking) {
      const ranked: number[] = [];
      for (let item = 0; item < this.ids.length; item++) if (this.popularity[item] > 0) ranked.push(item);
      ranked.sort((a, b) => this.popularity[b] - this.popularity[a] || compareIds(this.ids[a], this.ids[b]));
      this.popularityRanking = ranked.map((item) => this.ids[item]);
    }
    return this.popularityRanking;
  }

  stats(): ModelStats {
    return { users: this.users.size, items: this.ids.length, pairs: this.pairCount, interactions: this.interactionCount };
  }

  /** The neighbourhoodSize most similar items to item (ties: lower index), by bounded insertion. */
  private mostSimilar(item: number): Array<[number, number]> {
    const top: Array<[number, number]> = [];
    const k = this.neighbourhoodSize;
    for (const [other, count] of this.cooc.get(item) ?? []) {
      const similarity = this.cosine(item, other, count);
      if (top.length === k && similarity <= top[k - 1][1]) continue;
      let at = top.length === k ? k - 1 : top.length;
      while (at > 0 && (top[at - 1][1] < similarity || (top[at - 1][1] === similarity && top[at - 1][0] > other))) at--;
      top.splice(at, 0, [other, similarity]);
      if (top.length > k) top.pop();
    }
    return top;
  }

  private cosine(a: number, b: number, count: number): number {
    return count / Math.sqrt(this.holders[a] * this.holders[b]);
  }

  private intern(itemId: string): number {
    let item = this.indexOf.get(itemId);
    if (item === undefined) {
      item = this.ids.length;
      this.ids.push(itemId);
      this.indexOf.set(itemId, item);
      this.holders.push(0);
      this.popularity.push(0);
    }
    return item;
  }

  private userItems(userId: string): Map<number, UserItemState> {
    let items = this.users.get(userId);
    if (!items) {
      items = new Map();
      this.users.set(userId, items);
    }
    return items;
  }

  /** Popularity sums the positive part of every user's weight for the item. */
  private updatePopularity(item: number, before: number, after: number): void {
    const delta = Math.max(0, after) - Math.max(0, before);
    if (delta !== 0) {
      this.popularity[item] += delta;
      this.popularityRanking = undefined;
    }
  }

  /** item is new to the user: count it once with each item the user already has. */
  private joinUserSet(items: Map<number, UserItemState>, item: number): void {
    this.holders[item]++;
    for (const other of items.keys()) {
      this.bump(item, other);
      this.bump(other, item);
    }
  }

  private bump(a: number, b: number): void {
    let row = this.cooc.get(a);
    if (!row) {
      row = new Map();
      this.cooc.set(a, row);
    }
    const count = row.get(b);
    if (count === undefined && a < b) this.pairCount++;
    row.set(b, (count ?? 0) + 1);
  }
}

/** Code-unit order, so ties break the same way on every platform and locale. */
export function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
