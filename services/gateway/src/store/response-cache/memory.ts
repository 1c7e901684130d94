import { LRUCache } from 'lru-cache';
import {
  VECTORS_PER_PARTITION,
  type CachedAnswer,
  type RequestVector,
  type ResponseCacheStore,
} from './port';

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
  private readonly partitions: LRUCache<string, RequestVector[]>;

  constructor(limits: MemoryCacheLimits) {
    this.entries = new LRUCache<string, CachedAnswer>({
      max: limits.maxEntries,
      maxSize: limits.maxBytes,
      sizeCalculation: (value, key) =>
        2 * (value.answer.length + key.length) + ENTRY_OVERHEAD_BYTES,
    });
    // The semantic form's vectors: a quarter of the bytes again at most.
    this.partitions = new LRUCache<string, RequestVector[]>({
      max: limits.maxEntries,
      maxSize: Math.max(1, Math.floor(limits.maxBytes / 4)),
      sizeCalculation: (value) =>
        value.reduce((n, e) => n + e.vector.byteLength + 2 * e.key.length, 0) +
        ENTRY_OVERHEAD_BYTES,
    });
  }

  async addVector(partition: string, entry: RequestVector, ttlSeconds: number): Promise<void> {
    const current = this.partitions.get(partition) ?? [];
    const next = [entry, ...current.filter((e) => e.key !== entry.key)];
    this.partitions.set(partition, next.slice(0, VECTORS_PER_PARTITION), {
      ttl: ttlSeconds * 1000,
    });
  }

  async vectors(partition: string): Promise<RequestVector[]> {
    return this.partitions.get(partition) ?? [];
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
    this.partitions.clear();
  }
}
