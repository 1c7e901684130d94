import { foldUserSignals } from './interaction-weights';
import type { UserInteraction } from './types';

/**
 * The user-item matrix a model is trained on, as compressed rows (one row per user) of item
 * indexes and weights. Plain typed arrays, so it crosses to the training worker without copying.
 */
export interface TrainingSet {
  itemIds: string[];
  users: number;
  interactions: number;
  /** Row r holds entries rowStart[r] .. rowStart[r + 1] - 1. */
  rowStart: Int32Array;
  items: Int32Array;
  weights: Float32Array;
}

/** Folds an organization's interaction log into a TrainingSet; decay counts from the newest interaction. */
export function buildTrainingSet(interactions: readonly UserInteraction[], halfLifeDays: number): TrainingSet {
  const byUser = new Map<string, UserInteraction[]>();
  let newest = -Infinity;
  for (const interaction of interactions) {
    let list = byUser.get(interaction.userId);
    if (!list) byUser.set(interaction.userId, (list = []));
    list.push(interaction);
    if (interaction.timestamp > newest) newest = interaction.timestamp;
  }
  const itemIds: string[] = [];
  const indexOf = new Map<string, number>();
  const rowStart = [0];
  const items: number[] = [];
  const weights: number[] = [];
  for (const list of byUser.values()) {
    for (const [itemId, signal] of foldUserSignals(list, newest, halfLifeDays)) {
      if (signal.weight <= 0) continue;
      let index = indexOf.get(itemId);
      if (index === undefined) {
        index = itemIds.length;
        itemIds.push(itemId);
        indexOf.set(itemId, index);
      }
      items.push(index);
      weights.push(signal.weight);
    }
    rowStart.push(items.length);
  }
  return {
    itemIds,
    users: byUser.size,
    interactions: interactions.length,
    rowStart: Int32Array.from(rowStart),
    items: Int32Array.from(items),
    weights: Float32Array.from(weights),
  };
}

/** Sum of the user weights per item: the popularity ranking for cold starts. */
export function itemPopularity(set: TrainingSet): Float32Array {
  const popularity = new Float32Array(set.itemIds.length);
  for (let k = 0; k < set.items.length; k++) popularity[set.items[k]] += set.weights[k];
  return popularity;
}
