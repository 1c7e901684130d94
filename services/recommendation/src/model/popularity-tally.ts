import { implicitWeight, ratingWeight } from './interaction-weights';
import { topIndexes } from './co-occurrence';
import type { UserInteraction } from './types';

/** Items a tally ranks: more than any page of recommendations needs. */
const RANKED = 1000;
/** A tally's ranking is recomputed at most this often while interactions keep coming in. */
const RERANK_MS = 1000;

/** Weight of one interaction as popularity counts it: its type's signal, without decay or saturation. */
export function interactionWeight(interaction: Pick<UserInteraction, 'type' | 'value'>): number {
  return interaction.type === 'rating'
    ? ratingWeight(interaction.value)
    : implicitWeight(interaction.type);
}

/**
 * Popularity counted as interactions arrive, for an organization that has no model yet: what it
 * recommends from between its first interactions and its first published model. Bounded by the
 * organization's distinct items; its ranking is a partial selection of the top RANKED, redone
 * at most every RERANK_MS.
 */
export class PopularityTally {
  private readonly index = new Map<string, number>();
  private readonly itemIds: string[] = [];
  private weights = new Float64Array(1024);
  private ranking: Array<{ itemId: string; weight: number }> = [];
  private rankedAt = -Infinity;
  private changed = false;

  add(interactions: readonly Pick<UserInteraction, 'itemId' | 'type' | 'value'>[]): void {
    for (const interaction of interactions) {
      let i = this.index.get(interaction.itemId);
      if (i === undefined) {
        i = this.itemIds.length;
        this.index.set(interaction.itemId, i);
        this.itemIds.push(interaction.itemId);
        if (i === this.weights.length) {
          const grown = new Float64Array(i * 2);
          grown.set(this.weights);
          this.weights = grown;
        }
      }
      this.weights[i] += interactionWeight(interaction);
    }
    if (interactions.length > 0) this.changed = true;
  }

  /** Item ids, most popular first (ties: the item seen first), with their weights. */
  ranked(now = Date.now()): Array<{ itemId: string; weight: number }> {
    if (this.changed && now - this.rankedAt >= RERANK_MS) {
      const all = Int32Array.from(this.itemIds.keys());
      const top = topIndexes(all, all.length, (i) => this.weights[i], RANKED);
      this.ranking = Array.from(top, (i) => ({ itemId: this.itemIds[i], weight: this.weights[i] }));
      this.rankedAt = now;
      this.changed = false;
    }
    return this.ranking;
  }
}
