import { Redis } from 'ioredis';
import type { Logger } from 'pino';

/**
 * A Redis client for shared, fast state across replicas (counters, locks, idempotency keys,
 * caches). Commands wait for a reconnect rather than failing at once during short outages.
 */
export async function connectRedis(url: string, logger: Logger): Promise<Redis> {
  const redis = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 3,
    enableAutoPipelining: true,
    retryStrategy: (times) => Math.min(times * 200, 2000),
  });
  redis.on('error', (error: Error) => logger.warn({ error: error.message }, 'redis error'));
  await redis.connect();
  logger.info('connected to Redis');
  return redis;
}
