import type { Redis } from 'ioredis';
import type { Logger } from '@switchyard/shared';
import {
  VECTORS_PER_PARTITION,
  type CachedAnswer,
  type RequestVector,
  type ResponseCacheStore,
} from './port';

/** A vector as Redis keeps it: the key, a tab, the float32 values in base64. */
function vectorText(entry: RequestVector): string {
  const bytes = Buffer.from(entry.vector.buffer, entry.vector.byteOffset, entry.vector.byteLength);
  return `${entry.key}\t${bytes.toString('base64')}`;
}

function vectorOf(text: string): RequestVector | undefined {
  const tab = text.indexOf('\t');
  if (tab < 0) return undefined;
  const bytes = Buffer.from(text.slice(tab + 1), 'base64');
  const vector = new Float32Array(bytes.byteLength / 4);
  new Uint8Array(vector.buffer).set(bytes);
  return { key: text.slice(0, tab), vector };
}

/**
 * Answers shared by every replica, one Redis string each with its TTL; Redis's own eviction
 * policy (maxmemory-policy, e.g. allkeys-lru) bounds them. A Redis that cannot answer is a miss.
 */
export class RedisResponseCacheStore implements ResponseCacheStore {
  private failing = false;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly logger: Logger,
    private readonly ownsConnection = false,
  ) {}

  async get(key: string): Promise<CachedAnswer | undefined> {
    try {
      const text = await this.redis.get(this.prefix + key);
      this.recovered();
      return text === null ? undefined : (JSON.parse(text) as CachedAnswer);
    } catch (error) {
      this.failed(error);
      return undefined;
    }
  }

  async set(key: string, value: CachedAnswer, ttlSeconds: number): Promise<void> {
    try {
      await this.redis.set(this.prefix + key, JSON.stringify(value), 'EX', ttlSeconds);
      this.recovered();
    } catch (error) {
      this.failed(error);
    }
  }

  /** One list per partition, newest first, trimmed and given the answer's TTL in one transaction. */
  async addVector(partition: string, entry: RequestVector, ttlSeconds: number): Promise<void> {
    const key = this.prefix + partition;
    try {
      await this.redis
        .multi()
        .lpush(key, vectorText(entry))
        .ltrim(key, 0, VECTORS_PER_PARTITION - 1)
        .expire(key, ttlSeconds)
        .exec();
      this.recovered();
    } catch (error) {
      this.failed(error);
    }
  }

  async vectors(partition: string): Promise<RequestVector[]> {
    try {
      const texts = await this.redis.lrange(this.prefix + partition, 0, VECTORS_PER_PARTITION - 1);
      this.recovered();
      return texts.map(vectorOf).filter((entry) => entry !== undefined);
    } catch (error) {
      this.failed(error);
      return [];
    }
  }

  async close(): Promise<void> {
    if (!this.ownsConnection) return;
    if (this.redis.status === 'ready') await this.redis.quit().catch(() => this.redis.disconnect());
    else this.redis.disconnect();
  }

  /** One line per outage, not one per call. */
  private failed(error: unknown): void {
    if (this.failing) return;
    this.failing = true;
    this.logger.warn({ err: error }, 'response cache unavailable: calls go to the models');
  }

  private recovered(): void {
    this.failing = false;
  }
}
