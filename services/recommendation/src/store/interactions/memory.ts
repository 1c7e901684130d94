import { columnsOf, type InteractionColumns } from '../../model/training-set';
import { INTERACTION_TYPES, type InteractionType, type UserInteraction } from '../../model/types';
import type { InteractionStore, InteractionToStore } from './port';

/** Log entries per chunk: columns grow a chunk at a time, never copied whole. */
const CHUNK_BITS = 16;
const CHUNK = 1 << CHUNK_BITS;
const TYPE_CODE = new Map(INTERACTION_TYPES.map((type, code) => [type, code]));

/**
 * One organization's log in columns (29 bytes an interaction, plus 4 to 16 for each one stored
 * with a dedupe key): users and items as indexes into one copy of each id, each user's entries
 * chained in order. A log of millions of interactions is a few dozen typed arrays, not millions
 * of objects for the garbage collector to trace.
 */
class OrganizationLog {
  length = 0;
  private readonly userIndex = new Map<string, number>();
  private readonly userIds: string[] = [];
  private readonly itemIndex = new Map<string, number>();
  private readonly itemIds: string[] = [];
  /** Per user: the first and last entry of its chain (-1: none). */
  private first = new Int32Array(1024) as Int32Array<ArrayBuffer>;
  private last = new Int32Array(1024) as Int32Array<ArrayBuffer>;
  private readonly users: Int32Array[] = [];
  private readonly items: Int32Array[] = [];
  private readonly types: Uint8Array[] = [];
  private readonly values: Float64Array[] = [];
  private readonly timestamps: Float64Array[] = [];
  /** The user's next entry (-1: the last). */
  private readonly next: Int32Array[] = [];
  /** Entries stored with a dedupe key, by a hash of their fields (open addressing, index + 1). */
  private keyed = new Int32Array(1024);
  private keyedCount = 0;

  /** Stores the interaction unless it has a key and an equal keyed one is stored; true if stored. */
  add(interaction: InteractionToStore): boolean {
    const user = this.userOf(interaction.userId, true);
    const item = this.internItem(interaction.itemId);
    const type = TYPE_CODE.get(interaction.type)!;
    const keyed = interaction.dedupeKey !== undefined;
    if (keyed && this.findKeyed(user, item, type, interaction.value, interaction.timestamp) >= 0)
      return false;
    const k = this.length++;
    const chunk = k >>> CHUNK_BITS;
    if (chunk === this.users.length) {
      this.users.push(new Int32Array(CHUNK));
      this.items.push(new Int32Array(CHUNK));
      this.types.push(new Uint8Array(CHUNK));
      this.values.push(new Float64Array(CHUNK));
      this.timestamps.push(new Float64Array(CHUNK));
      this.next.push(new Int32Array(CHUNK));
    }
    const at = k & (CHUNK - 1);
    this.users[chunk][at] = user;
    this.items[chunk][at] = item;
    this.types[chunk][at] = type;
    this.values[chunk][at] = interaction.value;
    this.timestamps[chunk][at] = interaction.timestamp;
    this.next[chunk][at] = -1;
    if (this.last[user] < 0) this.first[user] = k;
    else this.next[this.last[user] >>> CHUNK_BITS][this.last[user] & (CHUNK - 1)] = k;
    this.last[user] = k;
    if (keyed) this.insertKeyed(k);
    return true;
  }

  forUser(userId: string): UserInteraction[] {
    const user = this.userOf(userId, false);
    const found: UserInteraction[] = [];
    if (user < 0) return found;
    for (let k = this.first[user]; k >= 0; k = this.next[k >>> CHUNK_BITS][k & (CHUNK - 1)])
      found.push(this.entry(k));
    return found;
  }

  /** The log as InteractionColumns, copied a chunk per turn of the event loop. */
  async columns(): Promise<InteractionColumns> {
    const length = this.length;
    const columns: InteractionColumns = {
      itemIds: this.itemIds.slice(),
      userCount: this.userIds.length,
      length,
      users: new Int32Array(length),
      items: new Int32Array(length),
      types: new Uint8Array(length),
      values: new Float32Array(length),
      timestamps: new Float64Array(length),
    };
    for (let chunk = 0; chunk * CHUNK < length; chunk++) {
      if (chunk > 0) await new Promise((resolve) => setImmediate(resolve));
      const at = chunk * CHUNK;
      const size = Math.min(CHUNK, length - at);
      columns.users.set(this.users[chunk].subarray(0, size), at);
      columns.items.set(this.items[chunk].subarray(0, size), at);
      columns.types.set(this.types[chunk].subarray(0, size), at);
      columns.values.set(this.values[chunk].subarray(0, size), at);
      columns.timestamps.set(this.timestamps[chunk].subarray(0, size), at);
    }
    return columns;
  }

  *all(): Generator<UserInteraction> {
    for (let user = 0; user < this.userIds.length; user++)
      for (let k = this.first[user]; k >= 0; k = this.next[k >>> CHUNK_BITS][k & (CHUNK - 1)])
        yield this.entry(k);
  }

  private entry(k: number): UserInteraction {
    const chunk = k >>> CHUNK_BITS;
    const at = k & (CHUNK - 1);
    return {
      userId: this.userIds[this.users[chunk][at]],
      itemId: this.itemIds[this.items[chunk][at]],
      type: INTERACTION_TYPES[this.types[chunk][at]] as InteractionType,
      value: this.values[chunk][at],
      timestamp: this.timestamps[chunk][at],
    };
  }

  private userOf(userId: string, create: boolean): number {
    let user = this.userIndex.get(userId);
    if (user !== undefined) return user;
    if (!create) return -1;
    user = this.userIds.length;
    this.userIndex.set(userId, user);
    this.userIds.push(userId);
    if (user === this.first.length) {
      this.first = grown(this.first);
      this.last = grown(this.last);
    }
    this.first[user] = -1;
    this.last[user] = -1;
    return user;
  }

  private internItem(itemId: string): number {
    let item = this.itemIndex.get(itemId);
    if (item === undefined) {
      item = this.itemIds.length;
      this.itemIndex.set(itemId, item);
      this.itemIds.push(itemId);
    }
    return item;
  }

  private findKeyed(
    user: number,
    item: number,
    type: number,
    value: number,
    timestamp: number,
  ): number {
    const mask = this.keyed.length - 1;
    for (
      let slot = hashFields(user, item, type, value, timestamp) & mask;
      ;
      slot = (slot + 1) & mask
    ) {
      const k = this.keyed[slot] - 1;
      if (k < 0) return -1;
      const chunk = k >>> CHUNK_BITS;
      const at = k & (CHUNK - 1);
      if (
        this.users[chunk][at] === user &&
        this.items[chunk][at] === item &&
        this.types[chunk][at] === type &&
        Object.is(this.values[chunk][at], value) &&
        this.timestamps[chunk][at] === timestamp
      )
        return k;
    }
  }

  private insertKeyed(k: number): void {
    if (2 * (this.keyedCount + 1) > this.keyed.length) {
      const entries = this.keyed;
      this.keyed = new Int32Array(entries.length * 2);
      for (const entry of entries) if (entry > 0) this.placeKeyed(entry - 1);
    }
    this.placeKeyed(k);
    this.keyedCount++;
  }

  private placeKeyed(k: number): void {
    const chunk = k >>> CHUNK_BITS;
    const at = k & (CHUNK - 1);
    const mask = this.keyed.length - 1;
    let slot =
      hashFields(
        this.users[chunk][at],
        this.items[chunk][at],
        this.types[chunk][at],
        this.values[chunk][at],
        this.timestamps[chunk][at],
      ) & mask;
    while (this.keyed[slot] !== 0) slot = (slot + 1) & mask;
    this.keyed[slot] = k + 1;
  }
}

function grown(array: Int32Array<ArrayBuffer>): Int32Array<ArrayBuffer> {
  const next = new Int32Array(array.length * 2);
  next.set(array);
  return next;
}

const bits = new Float64Array(1);
const words = new Uint32Array(bits.buffer);

/** A 32-bit hash of an entry's fields (murmur3's mixing), for the dedupe table. */
function hashFields(user: number, item: number, type: number, value: number, timestamp: number) {
  let h = Math.imul(user ^ 0x9e3779b9, 0x85ebca6b);
  h = Math.imul(h ^ item ^ (h >>> 13), 0xc2b2ae35);
  h ^= type;
  bits[0] = value;
  h = Math.imul(h ^ words[0] ^ (h >>> 16), 0x85ebca6b) ^ words[1];
  bits[0] = timestamp;
  h = Math.imul(h ^ words[0] ^ (h >>> 13), 0xc2b2ae35) ^ words[1];
  return (h ^ (h >>> 16)) >>> 0;
}

/**
 * The interaction log in memory (embedded mode, tests): per organization, columns as above.
 * Dedupe compares an interaction's fields, which its key is made of (see InteractionToStore).
 */
export class InMemoryInteractionStore implements InteractionStore {
  private readonly logs = new Map<string, OrganizationLog>();

  async append(
    organization: string,
    interactions: readonly InteractionToStore[],
  ): Promise<UserInteraction[]> {
    let log = this.logs.get(organization);
    if (!log) this.logs.set(organization, (log = new OrganizationLog()));
    const stored: UserInteraction[] = [];
    for (const interaction of interactions) {
      if (!log.add(interaction)) continue;
      const { dedupeKey: _key, ...fields } = interaction;
      stored.push(fields);
    }
    return stored;
  }

  async count(organization: string): Promise<number> {
    return this.logs.get(organization)?.length ?? 0;
  }

  async forUser(organization: string, userId: string): Promise<UserInteraction[]> {
    return this.logs.get(organization)?.forUser(userId) ?? [];
  }

  async *scan(organization: string): AsyncIterable<UserInteraction> {
    const log = this.logs.get(organization);
    if (log) yield* log.all();
  }

  async columns(organization: string): Promise<InteractionColumns> {
    const log = this.logs.get(organization);
    return log ? log.columns() : columnsOf([]);
  }

  async organizations(): Promise<string[]> {
    return [...this.logs.keys()];
  }
}
