import { decayFactor, implicitWeight, MAX_IMPLICIT, ratingWeight } from './interaction-weights';
import { INTERACTION_TYPES, type UserInteraction } from './types';

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
 * An interaction log in columns, users and items as indexes: 25 bytes per interaction, filled
 * while scanning the store and handed to the training worker without a copy (the arrays are
 * transferred), so the serving thread neither folds the log nor holds it as objects.
 */
export interface InteractionColumns {
  /** The distinct item ids, in order of first appearance; `items` indexes into it. */
  itemIds: string[];
  /** How many distinct users; `users` holds 0 .. users - 1. */
  userCount: number;
  /** How many interactions: the arrays hold at least this many entries, maybe more. */
  length: number;
  users: Int32Array<ArrayBuffer>;
  items: Int32Array<ArrayBuffer>;
  /** Index into INTERACTION_TYPES. */
  types: Uint8Array<ArrayBuffer>;
  values: Float32Array<ArrayBuffer>;
  timestamps: Float64Array<ArrayBuffer>;
}

const TYPE_CODE = new Map(INTERACTION_TYPES.map((type, code) => [type, code]));
const RATING = TYPE_CODE.get('rating')!;

/** Collects interactions into InteractionColumns, growing its arrays as it goes. */
export class ColumnsBuilder {
  private readonly userIndex = new Map<string, number>();
  private readonly itemIndex = new Map<string, number>();
  private readonly itemIds: string[] = [];
  private length = 0;
  private users: Int32Array<ArrayBuffer>;
  private items: Int32Array<ArrayBuffer>;
  private types: Uint8Array<ArrayBuffer>;
  private values: Float32Array<ArrayBuffer>;
  private timestamps: Float64Array<ArrayBuffer>;

  /** expected: how many interactions to make room for at once (the arrays grow past it). */
  constructor(expected = 1024) {
    const size = Math.max(16, expected);
    this.users = new Int32Array(size);
    this.items = new Int32Array(size);
    this.types = new Uint8Array(size);
    this.values = new Float32Array(size);
    this.timestamps = new Float64Array(size);
  }

  add(interaction: UserInteraction): void {
    if (this.length === this.users.length) this.grow();
    let user = this.userIndex.get(interaction.userId);
    if (user === undefined) this.userIndex.set(interaction.userId, (user = this.userIndex.size));
    let item = this.itemIndex.get(interaction.itemId);
    if (item === undefined) {
      item = this.itemIds.length;
      this.itemIndex.set(interaction.itemId, item);
      this.itemIds.push(interaction.itemId);
    }
    const k = this.length++;
    this.users[k] = user;
    this.items[k] = item;
    this.types[k] = TYPE_CODE.get(interaction.type) ?? 0;
    this.values[k] = interaction.value;
    this.timestamps[k] = interaction.timestamp;
  }

  /** The columns as collected: the arrays may run past `length` (not copied to trim them). */
  build(): InteractionColumns {
    return {
      itemIds: this.itemIds,
      userCount: this.userIndex.size,
      length: this.length,
      users: this.users,
      items: this.items,
      types: this.types,
      values: this.values,
      timestamps: this.timestamps,
    };
  }

  private grow(): void {
    const size = this.users.length * 2;
    const grown = <
      T extends
        | Int32Array<ArrayBuffer>
        | Uint8Array<ArrayBuffer>
        | Float32Array<ArrayBuffer>
        | Float64Array<ArrayBuffer>,
    >(
      array: T,
      make: (size: number) => T,
    ): T => {
      const next = make(size);
      next.set(array);
      return next;
    };
    this.users = grown(this.users, (s) => new Int32Array(s));
    this.items = grown(this.items, (s) => new Int32Array(s));
    this.types = grown(this.types, (s) => new Uint8Array(s));
    this.values = grown(this.values, (s) => new Float32Array(s));
    this.timestamps = grown(this.timestamps, (s) => new Float64Array(s));
  }
}

/** Interactions read between two turns of the event loop while collecting a log. */
const COLLECT_SLICE = 10_000;

/**
 * Reads a log into columns on the serving thread, giving the event loop a turn every
 * COLLECT_SLICE interactions: an in-memory log yields without ever waiting, and millions of
 * interactions read in one go would hold every call meanwhile.
 */
export async function collectColumns(
  log: AsyncIterable<UserInteraction>,
  expected?: number,
): Promise<InteractionColumns> {
  // Room for a few more than counted: interactions stored while the scan runs.
  const builder = new ColumnsBuilder(expected && Math.ceil(expected * 1.01) + 1024);
  let read = 0;
  for await (const interaction of log) {
    builder.add(interaction);
    if (++read % COLLECT_SLICE === 0) await new Promise((resolve) => setImmediate(resolve));
  }
  return builder.build();
}

export function columnsOf(interactions: Iterable<UserInteraction>): InteractionColumns {
  const builder = new ColumnsBuilder();
  for (const interaction of interactions) builder.add(interaction);
  return builder.build();
}

/**
 * Folds an organization's log into a TrainingSet, each user's interactions as foldUserSignals
 * folds them at serving time (saturated implicit signals plus the newest rating, decayed from
 * the newest interaction of the log). Linear in the log: a counting sort by user, then one pass.
 */
export function trainingSetFromColumns(
  columns: InteractionColumns,
  halfLifeDays: number,
): TrainingSet {
  const { length, userCount } = columns;
  let newest = -Infinity;
  for (let k = 0; k < length; k++) newest = Math.max(newest, columns.timestamps[k]);
  const userStart = new Int32Array(userCount + 1);
  for (let k = 0; k < length; k++) userStart[columns.users[k] + 1]++;
  for (let u = 0; u < userCount; u++) userStart[u + 1] += userStart[u];
  const byUser = new Int32Array(length);
  const fill = userStart.slice(0, userCount);
  for (let k = 0; k < length; k++) byUser[fill[columns.users[k]]++] = k;

  const n = columns.itemIds.length;
  /** Per item of the user being folded: its slot in the user's row, -1 when not there yet. */
  const slot = new Int32Array(n).fill(-1);
  const rowStart = new Int32Array(userCount + 1);
  const items = new Int32Array(length);
  const weights = new Float32Array(length);
  const implicit: number[] = [];
  const rating: number[] = [];
  const ratingAt: number[] = [];
  let size = 0;
  for (let u = 0; u < userCount; u++) {
    const first = size;
    for (let e = userStart[u]; e < userStart[u + 1]; e++) {
      const k = byUser[e];
      const item = columns.items[k];
      let at = slot[item];
      if (at < 0) {
        at = size++;
        slot[item] = at;
        items[at] = item;
        implicit[at - first] = 0;
        rating[at - first] = 0;
        ratingAt[at - first] = -Infinity;
      }
      const r = at - first;
      const decay = decayFactor(newest - columns.timestamps[k], halfLifeDays);
      if (columns.types[k] === RATING) {
        // Ratings arriving out of order must not overwrite a newer one.
        if (columns.timestamps[k] >= ratingAt[r]) {
          rating[r] = ratingWeight(columns.values[k]) * decay;
          ratingAt[r] = columns.timestamps[k];
        }
      } else {
        const type = INTERACTION_TYPES[columns.types[k]] as Exclude<
          (typeof INTERACTION_TYPES)[number],
          'rating'
        >;
        implicit[r] += implicitWeight(type) * decay;
      }
    }
    // Keep the entries with a positive weight, in place.
    let kept = first;
    for (let at = first; at < size; at++) {
      slot[items[at]] = -1;
      const weight = Math.min(MAX_IMPLICIT, implicit[at - first]) + rating[at - first];
      if (weight <= 0) continue;
      items[kept] = items[at];
      weights[kept++] = weight;
    }
    size = kept;
    rowStart[u + 1] = size;
  }
  return {
    itemIds: columns.itemIds,
    users: userCount,
    interactions: length,
    rowStart,
    items: items.slice(0, size),
    weights: weights.slice(0, size),
  };
}

/** Folds interactions into a TrainingSet (tests, benchmarks); the service goes through columns. */
export function buildTrainingSet(
  interactions: readonly UserInteraction[],
  halfLifeDays: number,
): TrainingSet {
  return trainingSetFromColumns(columnsOf(interactions), halfLifeDays);
}

/**
 * Popularity straight from the log (each interaction its type's weight, no decay or saturation):
 * cheap enough for the serving thread, so a model of popularity alone can be published before
 * the first real one is trained.
 */
export function columnsPopularity(columns: InteractionColumns): Float32Array {
  const typeWeight = INTERACTION_TYPES.map((type) =>
    type === 'rating' ? 0 : implicitWeight(type),
  );
  const popularity = new Float32Array(columns.itemIds.length);
  for (let k = 0; k < columns.length; k++) {
    const code = columns.types[k];
    popularity[columns.items[k]] +=
      code === RATING ? ratingWeight(columns.values[k]) : typeWeight[code];
  }
  return popularity;
}

/** Sum of the user weights per item: the popularity ranking for cold starts. */
export function itemPopularity(set: TrainingSet): Float32Array {
  const popularity = new Float32Array(set.itemIds.length);
  for (let k = 0; k < set.items.length; k++) popularity[set.items[k]] += set.weights[k];
  return popularity;
}

/** The transpose of a training set: for each item, its users and their weights. */
export interface ItemColumns {
  start: Int32Array;
  users: Int32Array;
  weights: Float32Array;
}

export function usersByItem(set: TrainingSet): ItemColumns {
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
