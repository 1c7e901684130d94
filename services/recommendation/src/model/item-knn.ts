import {
  forEachCooccurrenceRow,
  RowsBuilder,
  topIndexes,
  type SparseWeights,
} from './co-occurrence';
import type { TrainingSet } from './training-set';

export type { SparseWeights } from './co-occurrence';

/**
 * Item-kNN: cosine similarity over the weighted user vectors, keeping each item's `neighbours`
 * most similar items, best first. Kept for small data sets, where EASE's lambda would swamp the
 * counts, and as an option.
 */
export function trainItemKnn(set: TrainingSet, neighbours: number): SparseWeights {
  const n = set.itemIds.length;
  const norms = new Float64Array(n);
  for (let k = 0; k < set.items.length; k++) norms[set.items[k]] += set.weights[k] * set.weights[k];
  const rows = new RowsBuilder(n, n * Math.min(neighbours, 16));
  forEachCooccurrenceRow(set, (i, touched, count, dots) => {
    const similarity = (j: number) => dots[j] / Math.sqrt(norms[i] * norms[j]);
    for (const j of topIndexes(touched, count, similarity, neighbours)) rows.push(j, similarity(j));
    rows.endRow();
  });
  return rows.build();
}
