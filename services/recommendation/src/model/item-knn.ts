import type { TrainingSet } from './training-set';

export interface SparseWeights {
  rowStart: Int32Array;
  cols: Int32Array;
  values: Float32Array;
}

/**
 * Item-kNN for catalogs too large for EASE's dense inverse: cosine similarity over the weighted
 * user vectors, keeping each item's `neighbours` most similar items. Memory grows with the
 * co-occurring pairs of one item at a time, not with items squared.
 */
export function trainItemKnn(set: TrainingSet, neighbours: number): SparseWeights {
  const n = set.itemIds.length;
  const byItem = usersByItem(set);
  const norms = new Float64Array(n);
  for (let k = 0; k < set.items.length; k++) norms[set.items[k]] += set.weights[k] * set.weights[k];
  const dots = new Float64Array(n);
  const touched: number[] = [];
  const rowStart = [0];
  const cols: number[] = [];
  const values: number[] = [];
  for (let i = 0; i < n; i++) {
    for (let e = byItem.start[i]; e < byItem.start[i + 1]; e++) {
      const user = byItem.users[e];
      const wi = byItem.weights[e];
      for (let k = set.rowStart[user]; k < set.rowStart[user + 1]; k++) {
        const j = set.items[k];
        if (j === i) continue;
        if (dots[j] === 0) touched.push(j);
        dots[j] += wi * set.weights[k];
      }
    }
    const top = touched
      .map((j) => ({ j, similarity: dots[j] / Math.sqrt(norms[i] * norms[j]) }))
      .sort((a, b) => b.similarity - a.similarity || a.j - b.j)
      .slice(0, neighbours);
    for (const { j, similarity } of top) {
      cols.push(j);
      values.push(similarity);
    }
    rowStart.push(cols.length);
    for (const j of touched) dots[j] = 0;
    touched.length = 0;
  }
  return {
    rowStart: Int32Array.from(rowStart),
    cols: Int32Array.from(cols),
    values: Float32Array.from(values),
  };
}

/** The transpose of the training set: for each item, its users and their weights. */
function usersByItem(set: TrainingSet): {
  start: Int32Array;
  users: Int32Array;
  weights: Float32Array;
} {
  const n = set.itemIds.length;
  const start = new Int32Array(n + 1);
  for (let k = 0; k < set.items.length; k++) start[set.items[k] + 1]++;
  for (let i = 0; i < n; i++) start[i + 1] += start[i];
  const fill = start.slice(0, n);
  const users = new Int32Array(set.items.length);
  const weights = new Float32Array(set.items.length);
  for (let u = 0; u + 1 < set.rowStart.length; u++) {
    for (let k = set.rowStart[u]; k < set.rowStart[u + 1]; k++) {
      const at = fill[set.items[k]]++;
      users[at] = u;
      weights[at] = set.weights[k];
    }
  }
  return { start, users, weights };
}
