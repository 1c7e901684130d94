import {
  capUserRows,
  forEachCooccurrenceRow,
  RowsBuilder,
  topIndexes,
  type SparseWeights,
} from './co-occurrence';
import type { TrainingSet } from './training-set';

export interface SparseEaseOptions {
  /** L2 weight of the regression, as EASE's lambda. */
  lambda: number;
  /** Items each item is regressed on: its strongest co-occurring ones. */
  neighbours: number;
  /** Conjugate-gradient steps per item (few: they act as extra regularisation, and are cheap). */
  solverSteps: number;
  /** Entries kept per row of the model (what one item of a profile adds to its scores). */
  rowLimit: number;
  /** Longest user row the co-occurrences are counted on (see capUserRows). */
  historyCap: number;
}

/**
 * EASE restricted to item neighbourhoods, for catalogs too large for EASE's dense inverse.
 *
 * EASE's closed form is, column by column, a ridge regression of item j's column of X on every
 * other item's: b_j = (G_SS + lambda I)^-1 G_Sj with G = X'X and S all items but j. Here S is j's
 * `neighbours` strongest co-occurring items (as in SLIM with feature selection, Ning & Karypis
 * 2012), so each column costs a small system instead of one n x n inverse: time and memory grow
 * with items x neighbours and with the co-occurring pairs, not with items squared or cubed.
 *
 * 1. Each item's co-occurrence row, pruned to its 2 x neighbours strongest entries, and G_ii.
 * 2. For each item j: G_SS assembled from the pruned rows of S (a pair found in either row is
 *    exact; a pair in neither counts 0), solved by a few conjugate-gradient steps.
 * 3. The columns transposed to rows (row i: what item i adds to every j), each sorted best
 *    first and cut to rowLimit entries, so scoring a profile touches at most rowLimit per item.
 */
export function trainSparseEase(set: TrainingSet, options: SparseEaseOptions): SparseWeights {
  const n = set.itemIds.length;
  return rowsOf(solveColumns(prunedCooccurrences(set, options), options), n, options.rowLimit);
}

/**
 * Step 1: each item's co-occurrence row cut to its 2 x neighbours strongest entries, best first,
 * and the diagonal G_ii. Its own function, so it is garbage once the columns are solved.
 */
function prunedCooccurrences(
  set: TrainingSet,
  options: SparseEaseOptions,
): { g: SparseWeights; diagonal: Float64Array } {
  const n = set.itemIds.length;
  const capped = capUserRows(set, options.historyCap);
  const k = options.neighbours;
  const diagonal = new Float64Array(n);
  for (let e = 0; e < capped.items.length; e++)
    diagonal[capped.items[e]] += capped.weights[e] * capped.weights[e];
  const gram = new RowsBuilder(n, n * Math.min(2 * k, 64));
  forEachCooccurrenceRow(capped, (_i, touched, count, dots) => {
    for (const j of topIndexes(touched, count, (index) => dots[index], 2 * k))
      gram.push(j, dots[j]);
    gram.endRow();
  });
  return { g: gram.build(), diagonal };
}

/** Column j of the model (rows: the items of S, values: b_j), one column after the other. */
function solveColumns(
  { g, diagonal }: { g: SparseWeights; diagonal: Float64Array },
  options: SparseEaseOptions,
): SparseWeights {
  const n = diagonal.length;
  const k = options.neighbours;
  const position = new Int32Array(n).fill(-1);
  const a = new Float64Array(k * k);
  const b = new Float64Array(k);
  const solver = new ConjugateGradient(k);
  const columns = new RowsBuilder(n, n * Math.min(k, 64));
  for (let j = 0; j < n; j++) {
    const start = g.rowStart[j];
    const m = Math.min(k, g.rowStart[j + 1] - start);
    for (let x = 0; x < m; x++) position[g.cols[start + x]] = x;
    a.fill(0, 0, m * m);
    for (let x = 0; x < m; x++) {
      const s = g.cols[start + x];
      b[x] = g.values[start + x];
      a[x * m + x] = diagonal[s] + options.lambda;
      for (let e = g.rowStart[s]; e < g.rowStart[s + 1]; e++) {
        const y = position[g.cols[e]];
        if (y < 0) continue;
        a[x * m + y] = g.values[e];
        a[y * m + x] = g.values[e];
      }
    }
    const solution = solver.solve(a, b, m, options.solverSteps);
    for (let x = 0; x < m; x++) {
      position[g.cols[start + x]] = -1;
      if (solution[x] !== 0) columns.push(g.cols[start + x], solution[x]);
    }
    columns.endRow();
  }
  return columns.build();
}

/** Transposes columns to rows, each row sorted best first (ties: lower index) and cut to limit. */
function rowsOf(columns: SparseWeights, n: number, limit: number): SparseWeights {
  const count = new Int32Array(n + 1);
  for (const i of columns.cols) count[i + 1]++;
  for (let i = 0; i < n; i++) count[i + 1] += count[i];
  const fill = count.slice(0, n);
  const cols = new Int32Array(columns.cols.length);
  const values = new Float32Array(columns.cols.length);
  for (let j = 0; j < n; j++) {
    for (let e = columns.rowStart[j]; e < columns.rowStart[j + 1]; e++) {
      const at = fill[columns.cols[e]]++;
      cols[at] = j;
      values[at] = columns.values[e];
    }
  }
  const rows = new RowsBuilder(n, Math.min(cols.length, n * limit));
  for (let i = 0; i < n; i++) {
    const entries = cols.subarray(count[i], count[i + 1]);
    const local = values.subarray(count[i], count[i + 1]);
    const order = Int32Array.from({ length: entries.length }, (_, e) => e);
    for (const e of topIndexes(order, order.length, (x) => local[x], limit))
      rows.push(entries[e], local[e]);
    rows.endRow();
  }
  return rows.build();
}

/**
 * Solves (A) x = b for a symmetric positive definite A (m x m, row-major) by conjugate
 * gradients from x = 0, at most `steps` steps; buffers reused from call to call.
 */
class ConjugateGradient {
  private readonly x: Float64Array;
  private readonly r: Float64Array;
  private readonly p: Float64Array;
  private readonly ap: Float64Array;

  constructor(size: number) {
    this.x = new Float64Array(size);
    this.r = new Float64Array(size);
    this.p = new Float64Array(size);
    this.ap = new Float64Array(size);
  }

  solve(a: Float64Array, b: Float64Array, m: number, steps: number): Float64Array {
    const { x, r, p, ap } = this;
    let rr = 0;
    for (let i = 0; i < m; i++) {
      x[i] = 0;
      r[i] = b[i];
      p[i] = b[i];
      rr += b[i] * b[i];
    }
    const tolerance = rr * 1e-10;
    for (let step = 0; step < steps && rr > tolerance; step++) {
      let pap = 0;
      for (let i = 0; i < m; i++) {
        let sum = 0;
        const row = i * m;
        for (let j = 0; j < m; j++) sum += a[row + j] * p[j];
        ap[i] = sum;
        pap += p[i] * sum;
      }
      const alpha = rr / pap;
      let next = 0;
      for (let i = 0; i < m; i++) {
        x[i] += alpha * p[i];
        r[i] -= alpha * ap[i];
        next += r[i] * r[i];
      }
      const beta = next / rr;
      rr = next;
      for (let i = 0; i < m; i++) p[i] = r[i] + beta * p[i];
    }
    return x;
  }
}
