import type { SparseWeights } from './item-knn';

export type Algorithm = 'ease' | 'item_knn';

/** Item indexes with a positive score, best first (ties by item id), and their scores scaled to (0, 1]. */
export interface RankedIndexes {
  order: Int32Array;
  strength: Float32Array;
}

/** "More like this" items kept per item in a snapshot, ranked at training time. */
export const RELATED_KEPT = 100;

/** What a trained model holds; the snapshot every replica loads. */
export interface ItemModelData {
  algorithm: Algorithm;
  version: number;
  trainedAt: string;
  trainingMs: number;
  users: number;
  interactions: number;
  itemIds: string[];
  popularity: Float32Array;
  /** EASE: n x n row-major item-item weights. */
  dense?: Float32Array;
  /** item-kNN: each item's neighbours. */
  sparse?: SparseWeights;
  /** Each item's RELATED_KEPT best positive weights, ranked (ties by id), scaled to (0, 1]. */
  related: SparseWeights;
}

/**
 * A loaded item-item model. Scoring a user is x_u W over the user's items only: O(|user items| x
 * row length), about 0.1 ms for a MovieLens user on the dense EASE model.
 */
export class ItemModel {
  private readonly indexOf = new Map<string, number>();
  private popularRanking: number[] | undefined;
  /** Score buffer reused by rankUser: scoring a profile allocates nothing of the catalog's size. */
  private scratch: Float64Array<ArrayBuffer> | undefined;

  constructor(readonly data: ItemModelData) {
    data.itemIds.forEach((id, index) => this.indexOf.set(id, index));
  }

  get size(): number {
    return this.data.itemIds.length;
  }

  index(itemId: string): number | undefined {
    return this.indexOf.get(itemId);
  }

  itemId(index: number): string {
    return this.data.itemIds[index];
  }

  /** Sum over the user's items of weight x that item's row. */
  scoreUser(
    profile: ReadonlyMap<string, number>,
    into: Float64Array = new Float64Array(this.size),
  ): Float64Array {
    into.fill(0);
    for (const [itemId, weight] of profile) {
      const i = this.indexOf.get(itemId);
      if (i !== undefined && weight !== 0) this.addRow(into, i, weight);
    }
    return into;
  }

  /**
   * The user's `kept` best-scored items but the `excluded` ones, ranked; scored in a reused
   * buffer, selected without a full sort.
   */
  rankUser(
    profile: ReadonlyMap<string, number>,
    kept: number,
    excluded: Iterable<string> = [],
  ): RankedIndexes {
    this.scratch ??= new Float64Array(this.size);
    const scores = this.scoreUser(profile, this.scratch);
    for (const itemId of excluded) {
      const i = this.indexOf.get(itemId);
      if (i !== undefined) scores[i] = 0;
    }
    return rankPositive(scores, this.data.itemIds, kept);
  }

  /** "More like this": the item's row of the model (zeros when the item is unknown). */
  related(itemId: string): Float64Array {
    const scores = new Float64Array(this.size);
    const i = this.indexOf.get(itemId);
    if (i !== undefined) this.addRow(scores, i, 1);
    return scores;
  }

  /** The item's row, ranked at training time. */
  rankedRelated(itemId: string): RankedIndexes | undefined {
    const i = this.indexOf.get(itemId);
    if (i === undefined) return undefined;
    const { rowStart, cols, values } = this.data.related;
    return {
      order: cols.subarray(rowStart[i], rowStart[i + 1]),
      strength: values.subarray(rowStart[i], rowStart[i + 1]),
    };
  }

  popularity(index: number): number {
    return this.data.popularity[index];
  }

  /** Item indexes by popularity, most popular first, ties by id. */
  popular(): readonly number[] {
    if (!this.popularRanking) {
      const p = this.data.popularity;
      const ids = this.data.itemIds;
      this.popularRanking = [...p.keys()]
        .filter((i) => p[i] > 0)
        .sort((a, b) => p[b] - p[a] || (ids[a] < ids[b] ? -1 : 1));
    }
    return this.popularRanking;
  }

  private addRow(scores: Float64Array, i: number, weight: number): void {
    const { dense, sparse } = this.data;
    if (dense) {
      const n = this.size;
      const row = dense.subarray(i * n, (i + 1) * n);
      for (let j = 0; j < n; j++) scores[j] += weight * row[j];
    } else if (sparse) {
      for (let k = sparse.rowStart[i]; k < sparse.rowStart[i + 1]; k++)
        scores[sparse.cols[k]] += weight * sparse.values[k];
    }
  }
}

/** Every item's ranked row, its best `kept` entries (training time, in the worker). */
export function rankRelatedRows(
  data: Omit<ItemModelData, 'related'>,
  kept = RELATED_KEPT,
): SparseWeights {
  const model = new ItemModel({
    ...data,
    related: {
      rowStart: new Int32Array(data.itemIds.length + 1),
      cols: new Int32Array(0),
      values: new Float32Array(0),
    },
  });
  const rowStart = [0];
  const cols: number[] = [];
  const values: number[] = [];
  for (const itemId of data.itemIds) {
    const { order, strength } = rankPositive(model.related(itemId), data.itemIds, kept);
    for (let k = 0; k < order.length; k++) {
      cols.push(order[k]);
      values.push(strength[k]);
    }
    rowStart.push(cols.length);
  }
  return {
    rowStart: Int32Array.from(rowStart),
    cols: Int32Array.from(cols),
    values: Float32Array.from(values),
  };
}

/**
 * The `kept` best positive scores, best first (ties by item id), scaled to (0, 1]. A bounded
 * min-heap selects them in O(n log kept) and only they are sorted: a user's top 500 of a large
 * catalog costs no sort of the whole catalog and no array of its size.
 */
export function rankPositive(
  scores: ArrayLike<number>,
  ids: readonly string[],
  kept = Infinity,
): RankedIndexes {
  const better = (a: number, b: number) =>
    scores[a] > scores[b] || (scores[a] === scores[b] && ids[a] < ids[b]);
  const heap = new WorstFirstHeap(Math.min(kept, scores.length), better);
  for (let i = 0; i < scores.length; i++) if (scores[i] > 0) heap.offer(i);
  const order = heap.items().sort((a, b) => (better(a, b) ? -1 : better(b, a) ? 1 : 0));
  const top = order.length > 0 ? scores[order[0]] : 1;
  const strength = Float32Array.from(order, (i) => scores[i] / top);
  return { order, strength };
}

/** Keeps the `capacity` best indexes offered; its root is the worst of them, replaced by anything better. */
class WorstFirstHeap {
  private readonly heap: Int32Array;
  private size = 0;

  constructor(
    capacity: number,
    private readonly better: (a: number, b: number) => boolean,
  ) {
    this.heap = new Int32Array(capacity);
  }

  offer(index: number): void {
    const heap = this.heap;
    if (this.size < heap.length) {
      let at = this.size++;
      heap[at] = index;
      while (at > 0) {
        const up = (at - 1) >> 1;
        if (!this.better(heap[up], heap[at])) break;
        this.swap(up, at);
        at = up;
      }
    } else if (heap.length > 0 && this.better(index, heap[0])) {
      heap[0] = index;
      this.siftDown();
    }
  }

  items(): Int32Array {
    return this.heap.slice(0, this.size);
  }

  private swap(a: number, b: number): void {
    const kept = this.heap[a];
    this.heap[a] = this.heap[b];
    this.heap[b] = kept;
  }

  private siftDown(): void {
    const heap = this.heap;
    for (let at = 0; ;) {
      const left = 2 * at + 1;
      if (left >= this.size) return;
      const right = left + 1;
      const worse = right < this.size && this.better(heap[left], heap[right]) ? right : left;
      if (!this.better(heap[at], heap[worse])) return;
      this.swap(at, worse);
      at = worse;
    }
  }
}

interface Header extends Omit<ItemModelData, 'popularity' | 'dense' | 'sparse' | 'related'> {
  /** Byte lengths of the binary sections, in order: popularity, related (3), dense | sparse (3). */
  sections: number[];
}

/** One binary blob: 4-byte header length, JSON header, then the typed arrays (8-byte aligned). */
export function encodeModel(data: ItemModelData): Buffer {
  const { popularity, dense, sparse, related, ...meta } = data;
  const arrays: ArrayBufferView[] = [
    popularity,
    related.rowStart,
    related.cols,
    related.values,
    ...(dense ? [dense] : []),
    ...(sparse ? [sparse.rowStart, sparse.cols, sparse.values] : []),
  ];
  const header: Header = { ...meta, sections: arrays.map((a) => a.byteLength) };
  const json = Buffer.from(JSON.stringify(header));
  const parts: Buffer[] = [Buffer.alloc(4), json];
  parts[0].writeUInt32LE(json.length);
  let offset = 4 + json.length;
  for (const array of arrays) {
    const pad = (8 - (offset % 8)) % 8;
    parts.push(Buffer.alloc(pad), Buffer.from(array.buffer, array.byteOffset, array.byteLength));
    offset += pad + array.byteLength;
  }
  return Buffer.concat(parts);
}

export function decodeModel(blob: Buffer): ItemModelData {
  const headerLength = blob.readUInt32LE(0);
  const header = JSON.parse(blob.subarray(4, 4 + headerLength).toString()) as Header;
  let offset = 4 + headerLength;
  const sections = header.sections.map((length) => {
    offset += (8 - (offset % 8)) % 8;
    const at = blob.byteOffset + offset;
    offset += length;
    // Views on the blob itself when aligned (it is 8-byte aligned as written): loading a model
    // copies nothing on the serving thread. Otherwise a copy, aligned for the typed arrays.
    if (at % 8 === 0) return { buffer: blob.buffer, at, length };
    return { buffer: new Uint8Array(blob.subarray(offset - length, offset)).buffer, at: 0, length };
  });
  const { sections: _, ...meta } = header;
  const int32 = (k: number) =>
    new Int32Array(sections[k].buffer, sections[k].at, sections[k].length / 4);
  const float32 = (k: number) =>
    new Float32Array(sections[k].buffer, sections[k].at, sections[k].length / 4);
  const weights = (k: number) => ({
    rowStart: int32(k),
    cols: int32(k + 1),
    values: float32(k + 2),
  });
  const data: ItemModelData = { ...meta, popularity: float32(0), related: weights(1) };
  if (header.algorithm === 'ease') data.dense = float32(4);
  else data.sparse = weights(4);
  return data;
}
