/**
 * A map for in-memory stores that would otherwise grow with every call (embedded mode keeps what
 * Redis or MongoDB keep elsewhere): at most maxEntries entries, each with an optional expiry.
 * Eviction order: expired entries first (as they are met), then the oldest write; writing a key
 * again makes it the newest. Reading does not change the order (a replayed answer is as old as
 * its first write).
 */
export class BoundedMap<V> {
  private readonly entries = new Map<string, { value: V; expiresAt?: number }>();
  private evictedCount = 0;

  constructor(readonly maxEntries: number) {
    if (!Number.isSafeInteger(maxEntries) || maxEntries < 1)
      throw new RangeError(`maxEntries must be a positive integer, got ${maxEntries}`);
  }

  /** The value, or undefined when absent or expired (an expired entry is dropped). */
  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt !== undefined && entry.expiresAt <= Date.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  /** The entry's expiry (epoch ms), undefined when it has none or is absent. */
  expiresAt(key: string): number | undefined {
    return this.get(key) === undefined ? undefined : this.entries.get(key)!.expiresAt;
  }

  /** Stores value (the newest entry now), until expiresAt when given; evicts the oldest beyond the bound. */
  set(key: string, value: V, expiresAt?: number): void {
    this.entries.delete(key);
    this.entries.set(key, { value, expiresAt });
    this.dropExpiredHead();
    while (this.entries.size > this.maxEntries) {
      this.entries.delete(this.entries.keys().next().value!);
      this.evictedCount++;
    }
  }

  delete(key: string): boolean {
    return this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }

  /** Entries evicted for room (not expired ones) since the map was made. */
  get evicted(): number {
    return this.evictedCount;
  }

  /** Expired entries at the old end go as new ones come (insertion order is expiry order for one TTL). */
  private dropExpiredHead(): void {
    const now = Date.now();
    for (const [key, entry] of this.entries) {
      if (entry.expiresAt === undefined || entry.expiresAt > now) break;
      this.entries.delete(key);
    }
  }
}
