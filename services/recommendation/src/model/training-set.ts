import { foldUserSignals } from './interaction-weights';
import type { InteractionType, UserInteraction } from './types';

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

/**
 * An interaction log in columns: cheap to fill while scanning the store and to hand to the
 * training worker, so the serving thread does neither the folding nor a deep copy of objects.
 */
export interface InteractionColumns {
  userIds: string[];
  itemIds: string[];
  types: InteractionType[];
  values: Float64Array;
  timestamps: Float64Array;
}

export async function collectColumns(
  log: AsyncIterable<UserInteraction>,
): Promise<InteractionColumns> {
  const userIds: string[] = [];
  const itemIds: string[] = [];
  const types: InteractionType[] = [];
  const values: number[] = [];
  const timestamps: number[] = [];
  for await (const interaction of log) {
    userIds.push(interaction.userId);
    itemIds.push(interaction.itemId);
    types.push(interaction.type);
    values.push(interaction.value);
    timestamps.push(interaction.timestamp);
  }
  return {
    userIds,
    itemIds,
    types,
    values: Float64Array.from(values),
    timestamps: Float64Array.from(timestamps),
  };
}

export function fromColumns(columns: InteractionColumns): UserInteraction[] {
  return columns.userIds.map((userId, k) => ({
    userId,
    itemId: columns.itemIds[k],
    type: columns.types[k],
    value: columns.values[k],
    timestamp: columns.timestamps[k],
  }));
}

/** Folds an organization's interaction log into a TrainingSet; decay counts from the newest interaction. */
export function buildTrainingSet(
  interactions: readonly UserInteraction[],
  halfLifeDays: number,
): TrainingSet {
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
