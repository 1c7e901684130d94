import type { SparseWeights } from './co-occurrence';

/** EASE (dense, small catalogs), its neighbourhood form (large catalogs), item-kNN (small data). */
export type Algorithm = 'ease' | 'sparse_ease' | 'item_knn';

/** A model of popularity alone, published while an organization's first real model trains. */
export type ModelKind = Algorithm | 'popularity';

/** Item indexes with a positive score, best first (ties by item id), and their scores scaled to (0, 1]. */
export interface RankedIndexes {
  order: Int32Array;
  strength: Float32Array;
}

/** "More like this" items kept per item in a snapshot, ranked at training time. */
export const RELATED_KEPT = 100;

/** What a trained model holds; the snapshot every replica loads. */
export interface ItemModelData {
  algorithm: ModelKind;
  version: number;
  trainedAt: string;
  trainingMs: number;
  users: number;
  interactions: number;
  itemIds: string[];
  popularity: Float32Array;
  /**
   * Item indexes with a positive popularity, most popular first (ties by id), ranked where the
   * model is built (the worker): a catalog's sort never runs on the serving thread.
   */
  popularOrder?: Int32Array;
  /** EASE: n x n row-major item-item weights. */
  dense?: Float32Array;
  /** sparse_ease, item_knn: each item's row, sorted best first (ties: lower index). */
  sparse?: SparseWeights;
  /**
   * Dense models only: each item's RELATED_KEPT best positive weights, ranked (ties by id),
   * scaled to (0, 1]. A sparse model's rows are ranked already and serve as they are.
   */
  related?: SparseWeights;
}

/**
 * A loaded item-item model. Scoring a user is x_u W over the user's items only: O(|user items| x
 * row length). Sparse rows are added up over the items they touch, and only those are ranked.
 */
/** Item ids indexed between two turns of the event loop when a model is loaded for serving. */
const INDEX_SLICE = 20_000;

export class ItemModel {
  private readonly indexOf: Map<string, number>;
  /** Score buffer reused by rankUser: scoring a profile allocates nothing of the catalog's size. */
  private scratch: Float64Array<ArrayBuffer> | undefined;
  /** Sparse models: the indexes rankUser's scratch holds a score for, and a mark per index. */
  private touched: Int32Array<ArrayBuffer> | undefined;
  private marked: Uint8Array<ArrayBuffer> | undefined;

  constructor(
    readonly data: ItemModelData,
    indexOf?: Map<string, number>,
  ) {
    this.indexOf = indexOf ?? new Map(data.itemIds.map((id, index) => [id, index]));
  }

  /**
   * The model for the serving thread: its id index built a slice at a time, so loading a catalog
   * of hundreds of thousands of items never holds the calls in flight for the whole build.
   */
  static async load(data: ItemModelData): Promise<ItemModel> {
    const indexOf = new Map<string, number>();
    for (let start = 0; start < data.itemIds.length; start += INDEX_SLICE) {
      if (start > 0) await new Promise((resolve) => setImmediate(resolve));
      const end = Math.min(data.itemIds.length, start + INDEX_SLICE);
      for (let i = start; i < end; i++) indexOf.set(data.itemIds[i], i);
    }
    return new ItemModel(data, indexOf);
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
    // A model of popularity alone scores no one.
    if (!this.data.dense && !this.data.sparse)
      return { order: new Int32Array(0), strength: new Float32Array(0) };
    this.scratch ??= new Float64Array(this.size);
    if (!this.data.sparse) {
      const scores = this.scoreUser(profile, this.scratch);
      for (const itemId of excluded) {
        const i = this.indexOf.get(itemId);
        if (i !== undefined) scores[i] = 0;
      }
      return rankPositive(scores, this.data.itemIds, kept);
    }
    return this.rankSparse(this.data.sparse, profile, kept, excluded);
  }

  /** rankUser on sparse rows: scores only what the profile's rows touch, then clears just that. */
  private rankSparse(
    rows: SparseWeights,
    profile: ReadonlyMap<string, number>,
    kept: number,
    excluded: Iterable<string>,
  ): RankedIndexes {
    const scores = this.scratch!;
    this.touched ??= new Int32Array(this.size);
    this.marked ??= new Uint8Array(this.size);
    const { touched, marked } = this;
    let count = 0;
    for (const [itemId, weight] of profile) {
      const i = this.indexOf.get(itemId);
      if (i === undefined || weight === 0) continue;
      for (let k = rows.rowStart[i]; k < rows.rowStart[i + 1]; k++) {
        const j = rows.cols[k];
        if (marked[j] === 0) {
          marked[j] = 1;
          touched[count++] = j;
        }
        scores[j] += weight * rows.values[k];
      }
    }
    for (const itemId of excluded) {
      const i = this.indexOf.get(itemId);
      if (i !== undefined) scores[i] = 0;
    }
    const ranked = rankPositive(scores, this.data.itemIds, kept, touched.subarray(0, count));
    for (let t = 0; t < count; t++) {
      scores[touched[t]] = 0;
      marked[touched[t]] = 0;
    }
    return ranked;
  }

  /** "More like this": the item's row of the model (zeros when the item is unknown). */
  related(itemId: string): Float64Array {
    const scores = new Float64Array(this.size);
    const i = this.indexOf.get(itemId);
    if (i !== undefined) this.addRow(scores, i, 1);
    return scores;
  }

  /** The item's row, ranked at training time: its positive head, scaled to (0, 1]. */
  rankedRelated(itemId: string): RankedIndexes | undefined {
    const i = this.indexOf.get(itemId);
    if (i === undefined) return undefined;
    const rows = this.data.related ?? this.data.sparse;
    if (!rows) return undefined;
    const start = rows.rowStart[i];
    let end = start;
    const last = Math.min(rows.rowStart[i + 1], start + RELATED_KEPT);
    while (end < last && rows.values[end] > 0) end++;
    const order = rows.cols.subarray(start, end);
    if (this.data.related) return { order, strength: rows.values.subarray(start, end) };
    const top = end > start ? rows.values[start] : 1;
    return { order, strength: rows.values.slice(start, end).map((value) => value / top) };
  }

  popularity(index: number): number {
    return this.data.popularity[index];
  }

  /** Item indexes by popularity, most popular first, ties by id. */
  popular(): ArrayLike<number> {
    this.data.popularOrder ??= rankPositive(this.data.popularity, this.data.itemIds).order;
    return this.data.popularOrder;
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
  const model = new ItemModel(data);
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
  /** The only indexes that may score above 0 (all when absent). */
  candidates?: Int32Array,
): RankedIndexes {
  const better = (a: number, b: number) =>
    scores[a] > scores[b] || (scores[a] === scores[b] && ids[a] < ids[b]);
  const heap = new WorstFirstHeap(
    Math.min(kept, candidates ? candidates.length : scores.length),
    better,
  );
  // Once the heap is full, a score below its worst cannot get in: skipped without a call.
  let floor = 0;
  const offer = (i: number) => {
    if (scores[i] <= 0 || scores[i] < floor) return;
    heap.offer(i);
    if (heap.full) floor = scores[heap.worst];
  };
  if (candidates) for (const i of candidates) offer(i);
  else for (let i = 0; i < scores.length; i++) offer(i);
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

  get full(): boolean {
    return this.size === this.heap.length;
  }

  /** The worst index kept (the root). */
  get worst(): number {
    return this.heap[0];
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

/** A typed-array section of a snapshot. */
type Part =
  | 'itemIds.text'
  | 'itemIds.ends'
  | 'popularity'
  | 'popularOrder'
  | 'dense'
  | `${'sparse' | 'related'}.${'rowStart' | 'cols' | 'values'}`;

interface Header extends Omit<
  ItemModelData,
  'itemIds' | 'popularity' | 'popularOrder' | 'dense' | 'sparse' | 'related'
> {
  /** The binary sections, in order, and their byte lengths. */
  parts: Part[];
  sections: number[];
}

/**
 * The item ids as one UTF-16 text and each id's end in it: a catalog's ids decode as one string
 * and slices of it, not as a JSON array of hundreds of thousands of strings parsed in one go.
 * UTF-16 code units, so any id (a lone surrogate included) comes back as it was.
 */
function encodeIds(itemIds: readonly string[]): [Uint8Array, Int32Array] {
  const ends = new Int32Array(itemIds.length);
  let end = 0;
  itemIds.forEach((id, i) => (ends[i] = end += id.length));
  return [Buffer.from(itemIds.join(''), 'utf16le'), ends];
}

function decodeIds(text: Buffer, ends: Int32Array): string[] {
  const all = text.toString('utf16le');
  return Array.from(ends, (end, i) => all.slice(i === 0 ? 0 : ends[i - 1], end));
}

function partsOf(data: ItemModelData): Array<[Part, Int32Array | Float32Array | Uint8Array]> {
  const [idText, idEnds] = encodeIds(data.itemIds);
  const rows = (
    name: 'sparse' | 'related',
    w: SparseWeights,
  ): Array<[Part, Int32Array | Float32Array]> => [
    [`${name}.rowStart`, w.rowStart],
    [`${name}.cols`, w.cols],
    [`${name}.values`, w.values],
  ];
  return [
    ['itemIds.text', idText],
    ['itemIds.ends', idEnds],
    ['popularity', data.popularity],
    ...(data.popularOrder ? [['popularOrder', data.popularOrder] as [Part, Int32Array]] : []),
    ...(data.related ? rows('related', data.related) : []),
    ...(data.dense ? [['dense', data.dense] as [Part, Float32Array]] : []),
    ...(data.sparse ? rows('sparse', data.sparse) : []),
  ];
}

/** One binary blob: 4-byte header length, JSON header, then the typed arrays (8-byte aligned). */
export function encodeModel(data: ItemModelData): Buffer {
  const { popularity: _p, popularOrder: _o, dense: _d, sparse: _s, related: _r, ...meta } = data;
  const parts = partsOf(data);
  const header: Header = {
    ...meta,
    parts: parts.map(([name]) => name),
    sections: parts.map(([, array]) => array.byteLength),
  };
  const json = Buffer.from(JSON.stringify(header));
  const chunks: Buffer[] = [Buffer.alloc(4), json];
  chunks[0].writeUInt32LE(json.length);
  let offset = 4 + json.length;
  for (const [, array] of parts) {
    const pad = (8 - (offset % 8)) % 8;
    chunks.push(Buffer.alloc(pad), Buffer.from(array.buffer, array.byteOffset, array.byteLength));
    offset += pad + array.byteLength;
  }
  return Buffer.concat(chunks);
}

export function decodeModel(blob: Buffer): ItemModelData {
  const headerLength = blob.readUInt32LE(0);
  const header = JSON.parse(blob.subarray(4, 4 + headerLength).toString()) as Header;
  if (!Array.isArray(header.parts)) throw new Error('model snapshot of an earlier format');
  let offset = 4 + headerLength;
  const views = new Map<Part, { buffer: ArrayBuffer; at: number; length: number }>();
  header.sections.forEach((length, k) => {
    offset += (8 - (offset % 8)) % 8;
    const at = blob.byteOffset + offset;
    offset += length;
    // Views on the blob itself when aligned (it is 8-byte aligned as written): loading a model
    // copies nothing on the serving thread. Otherwise a copy, aligned for the typed arrays.
    views.set(
      header.parts[k],
      at % 8 === 0
        ? { buffer: blob.buffer as ArrayBuffer, at, length }
        : { buffer: new Uint8Array(blob.subarray(offset - length, offset)).buffer, at: 0, length },
    );
  });
  const { sections: _, parts: _parts, ...meta } = header;
  const view = <T>(part: Part, make: (buffer: ArrayBuffer, at: number, length: number) => T) => {
    const found = views.get(part);
    if (!found) throw new Error(`model snapshot without ${part}`);
    return make(found.buffer, found.at, found.length / 4);
  };
  const int32 = (part: Part) => view(part, (b, at, n) => new Int32Array(b, at, n));
  const float32 = (part: Part) => view(part, (b, at, n) => new Float32Array(b, at, n));
  const rows = (name: 'sparse' | 'related'): SparseWeights => ({
    rowStart: int32(`${name}.rowStart`),
    cols: int32(`${name}.cols`),
    values: float32(`${name}.values`),
  });
  const text = views.get('itemIds.text');
  if (!text) throw new Error('model snapshot without itemIds.text');
  const itemIds = decodeIds(Buffer.from(text.buffer, text.at, text.length), int32('itemIds.ends'));
  const data: ItemModelData = { ...meta, itemIds, popularity: float32('popularity') };
  if (views.has('popularOrder')) data.popularOrder = int32('popularOrder');
  if (views.has('related.rowStart')) data.related = rows('related');
  if (views.has('dense')) data.dense = float32('dense');
  if (views.has('sparse.rowStart')) data.sparse = rows('sparse');
  return data;
}
