import { inverse, Matrix } from 'ml-matrix';
import type { TrainingSet } from './training-set';

/**
 * EASE (Steck, "Embarrassingly Shallow Autoencoders for Sparse Data", WWW 2019): the item-item
 * weights B minimising ||X - XB||^2 + lambda ||B||^2 with diag(B) = 0, in closed form:
 * P = (X'X + lambda I)^-1, B_ij = -P_ij / P_jj, B_jj = 0. A user's scores are x_u B.
 * Returns B dense, row-major (row i: what item i contributes to every item), as float32.
 */
export function trainEase(set: TrainingSet, lambda: number): Float32Array {
  const n = set.itemIds.length;
  const rows = Array.from({ length: n }, () => new Float64Array(n));
  for (let u = 0; u + 1 < set.rowStart.length; u++) {
    const start = set.rowStart[u];
    const end = set.rowStart[u + 1];
    for (let a = start; a < end; a++) {
      const row = rows[set.items[a]];
      const wa = set.weights[a];
      for (let b = start; b < end; b++) row[set.items[b]] += wa * set.weights[b];
    }
  }
  for (let i = 0; i < n; i++) rows[i][i] += lambda;
  const p = inverse(new Matrix(rows));
  const diagonal = Float64Array.from({ length: n }, (_, j) => p.get(j, j));
  const weights = new Float32Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) if (i !== j) weights[i * n + j] = -p.get(i, j) / diagonal[j];
  }
  return weights;
}
