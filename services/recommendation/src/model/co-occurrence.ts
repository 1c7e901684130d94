import { usersByItem, type TrainingSet } from './training-set';

/** Compressed rows: row i holds cols[rowStart[i] .. rowStart[i + 1] - 1] and their values. */
export interface SparseWeights {
  rowStart: Int32Array;
  cols: Int32Array;
  values: Float32Array;
}

/**
 * The training set with each user's row cut to the `cap` strongest entries (ties: the earlier
 * entry). Co-occurrence costs the sum over users of their row length squared: one user with
 * 20,000 items would cost as much as 400,000 users with 10. Serving still uses the whole history.
 */
export function capUserRows(set: TrainingSet, cap: number): TrainingSet {
  let longest = 0;
  for (let u = 0; u < set.users; u++)
    longest = Math.max(longest, set.rowStart[u + 1] - set.rowStart[u]);
  if (longest <= cap) return set;
  const rowStart = new Int32Array(set.users + 1);
  const items: number[] = [];
  const weights: number[] = [];
  for (let u = 0; u < set.users; u++) {
    const start = set.rowStart[u];
    const end = set.rowStart[u + 1];
    let entries = Array.from({ length: end - start }, (_, k) => start + k);
    if (entries.length > cap)
      entries = entries.sort((a, b) => set.weights[b] - set.weights[a] || a - b).slice(0, cap);
    for (const k of entries) {
      items.push(set.items[k]);
      weights.push(set.weights[k]);
    }
    rowStart[u + 1] = items.length;
  }
  return { ...set, rowStart, items: Int32Array.from(items), weights: Float32Array.from(weights) };
}

/**
 * Calls visit(i, touched, count, dots) for every item i with its co-occurrence row
 * G_i. = sum over the users of i of w_ui w_u. (i itself left out): dots[j] holds G_ij for the
 * `count` indexes in touched, in no order, and is only valid during the call. One dense scratch
 * row for all items, cleared through the touched list: memory is the catalog's size, not its square.
 */
export function forEachCooccurrenceRow(
  set: TrainingSet,
  visit: (item: number, touched: Int32Array, count: number, dots: Float64Array) => void,
): void {
  const n = set.itemIds.length;
  const byItem = usersByItem(set);
  const dots = new Float64Array(n);
  const touched = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    let count = 0;
    for (let e = byItem.start[i]; e < byItem.start[i + 1]; e++) {
      const user = byItem.users[e];
      const wi = byItem.weights[e];
      for (let k = set.rowStart[user]; k < set.rowStart[user + 1]; k++) {
        const j = set.items[k];
        if (j === i) continue;
        if (dots[j] === 0) touched[count++] = j;
        dots[j] += wi * set.weights[k];
      }
    }
    visit(i, touched, count, dots);
    for (let t = 0; t < count; t++) dots[touched[t]] = 0;
  }
}

/**
 * The `kept` indexes with the highest score among candidates[0 .. count - 1], best first (ties:
 * the lower index), in O(count log kept): a bounded min-heap, then a sort of what it kept.
 */
export function topIndexes(
  candidates: Int32Array,
  count: number,
  score: (index: number) => number,
  kept: number,
): Int32Array {
  const better = (a: number, b: number) => {
    const sa = score(a);
    const sb = score(b);
    return sa > sb || (sa === sb && a < b);
  };
  const heap = new Int32Array(Math.min(kept, count));
  let size = 0;
  const siftDown = () => {
    for (let at = 0; ;) {
      const left = 2 * at + 1;
      if (left >= size) return;
      const right = left + 1;
      const worse = right < size && better(heap[left], heap[right]) ? right : left;
      if (!better(heap[at], heap[worse])) return;
      [heap[at], heap[worse]] = [heap[worse], heap[at]];
      at = worse;
    }
  };
  for (let t = 0; t < count; t++) {
    const index = candidates[t];
    if (size < heap.length) {
      let at = size++;
      heap[at] = index;
      while (at > 0) {
        const up = (at - 1) >> 1;
        if (!better(heap[up], heap[at])) break;
        [heap[up], heap[at]] = [heap[at], heap[up]];
        at = up;
      }
    } else if (heap.length > 0 && better(index, heap[0])) {
      heap[0] = index;
      siftDown();
    }
  }
  return heap.sort((a, b) => (better(a, b) ? -1 : better(b, a) ? 1 : 0));
}

/** Builds compressed rows one row at a time, in row order. */
export class RowsBuilder {
  private readonly rowStart: Int32Array;
  private cols: Int32Array;
  private values: Float32Array;
  private size = 0;
  private row = 0;

  constructor(rows: number, expected: number) {
    this.rowStart = new Int32Array(rows + 1);
    this.cols = new Int32Array(Math.max(16, expected));
    this.values = new Float32Array(Math.max(16, expected));
  }

  push(col: number, value: number): void {
    if (this.size === this.cols.length) {
      const cols = new Int32Array(this.size * 2);
      cols.set(this.cols);
      this.cols = cols;
      const values = new Float32Array(this.size * 2);
      values.set(this.values);
      this.values = values;
    }
    this.cols[this.size] = col;
    this.values[this.size++] = value;
  }

  /** Ends the current row: call it once per row, in order, empty rows included. */
  endRow(): void {
    this.rowStart[++this.row] = this.size;
  }

  build(): SparseWeights {
    if (this.row !== this.rowStart.length - 1) throw new Error('RowsBuilder: rows left unended');
    return {
      rowStart: this.rowStart,
      cols: this.cols.slice(0, this.size),
      values: this.values.slice(0, this.size),
    };
  }
}
