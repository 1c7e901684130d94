import type { Redis } from 'ioredis';
import type { Logger } from '@switchyard/shared';
import type { CachedAnswer, ResponseCacheStore } from './port';

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
