import { foldUserSignals } from './interaction-weights';
import type { RankedIndexes } from './item-model';
import type { InteractionStore } from '../store/interactions/port';
import { scopedKey as cacheKey } from './types';

export interface UserProfile {
  /** The user has at least one recorded interaction. */
  known: boolean;
  /** The user's weight per item, as in training. */
  weights: Map<string, number>;
  /** Items the user has (purchased, ticketed, enrolled, completed or rated): never recommended back. */
  owned: Set<string>;
  /** The model's best-scored items for this profile, kept while the same model version serves (see recommender.ts). */
  scored?: { version: number; ranked: RankedIndexes; taste?: Taste };
}

/** A profile's kept scores by item index, ascending (see recommender.ts). */
export interface Taste {
  indexes: Int32Array;
  strength: Float32Array;
}

/**
 * Users' profiles read from the interaction store (shared by every replica) and cached. A
 * recorded interaction drops the user's entry on every replica (interactions.recorded event), so
 * the next request reads it again: a new interaction counts at once, and replicas agree.
 */
export class UserProfiles {
  private readonly cache = new Map<string, UserProfile>();
  /**
   * Loads under way, shared by the calls for the same user meanwhile (one store read, not one per
   * call in flight); an invalidation removes the entry so a stale load is not cached or joined.
   */
  private readonly loading = new Map<string, Promise<UserProfile>>();

  constructor(
    private readonly store: InteractionStore,
    private readonly halfLifeDays: number,
    private readonly maxEntries = 20_000,
  ) {}

  async get(organization: string, userId: string): Promise<UserProfile> {
    const key = cacheKey(organization, userId);
    const cached = this.cache.get(key) ?? this.loading.get(key);
    if (cached) return cached;
    const load = this.load(organization, userId);
    this.loading.set(key, load);
    try {
      const profile = await load;
      if (this.loading.get(key) === load) this.remember(key, profile);
      return profile;
    } finally {
      if (this.loading.get(key) === load) this.loading.delete(key);
    }
  }

  private async load(organization: string, userId: string): Promise<UserProfile> {
    const interactions = await this.store.forUser(organization, userId);
    const newest = interactions.reduce((max, i) => Math.max(max, i.timestamp), -Infinity);
    const profile: UserProfile = {
      known: interactions.length > 0,
      weights: new Map(),
      owned: new Set(),
    };
    for (const [itemId, signal] of foldUserSignals(interactions, newest, this.halfLifeDays)) {
      if (signal.weight > 0) profile.weights.set(itemId, signal.weight);
      if (signal.owned) profile.owned.add(itemId);
    }
    return profile;
  }

  invalidate(organization: string, userIds: Iterable<string>): void {
    for (const userId of userIds) {
      const key = cacheKey(organization, userId);
      this.cache.delete(key);
      this.loading.delete(key);
    }
  }

  /** Bounded: the oldest entry goes first (Map keeps insertion order). */
  private remember(key: string, profile: UserProfile): void {
    if (this.cache.size >= this.maxEntries) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(key, profile);
  }
}
