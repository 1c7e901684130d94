import { LRUCache } from 'lru-cache';
import type { CachedAnswer, ResponseCacheStore } from './port';

/** Bytes counted for an entry beyond its text: the record, the key and the map's own. */
const ENTRY_OVERHEAD_BYTES = 200;

export interface MemoryCacheLimits {
  maxEntries: number;
  /** The answers' size in bytes (UTF-16 in memory: two per character), overhead included. */
  maxBytes: number;
}

/** One process's cache (embedded mode): least recently used answers go first beyond either bound. */
export class InMemoryResponseCacheStore implements ResponseCacheStore {
  private readonly entries: LRUCache<string, CachedAnswer>;

  constructor(limits: MemoryCacheLimits) {
    this.entries = new LRUCache<string, CachedAnswer>({
      max: limits.maxEntries,
      maxSize: limits.maxBytes,
      sizeCalculation: (value, key) =>
        2 * (value.answer.length + key.length) + ENTRY_OVERHEAD_BYTES,
    });
  }

  async get(key: string): Promise<CachedAnswer | undefined> {
    return this.entries.get(key);
  }

  async set(key: string, value: CachedAnswer, ttlSeconds: number): Promise<void> {
    // An answer larger than the whole cache is not kept (lru-cache refuses it).
    this.entries.set(key, value, { ttl: ttlSeconds * 1000 });
  }

  get size(): number {
    return this.entries.size;
  }

  async close(): Promise<void> {
    this.entries.clear();
  }
}
