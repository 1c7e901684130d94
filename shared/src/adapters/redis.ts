import { Redis, ReplyError } from 'ioredis';
import type { Logger } from 'pino';
import { dependencyHealth, type DependencyProbe } from '../resilience/dependencies';
import { commandMetricsEnabled, timeRedisCommands } from './command-metrics';

/** A command not answered within this long fails (a Redis that hangs must not hold calls). */
export const REDIS_COMMAND_TIMEOUT_MS = 500;

/**
 * A Redis client for shared, fast state across replicas (counters, locks, idempotency keys,
 * caches). While Redis is unreachable commands fail at once (no offline queue, no retry of a
 * command whose connection broke) and calls answer 503 within a second, instead of waiting for
 * a reconnect; the client reconnects every 250 ms or so, so it is back within a second of
 * Redis. A command Redis does not answer fails after REDIS_COMMAND_TIMEOUT_MS.
 */
export async function connectRedis(url: string, logger: Logger): Promise<Redis> {
  if (commandMetricsEnabled()) timeRedisCommands();
  const redis = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    connectTimeout: 1000,
    enableAutoPipelining: true,
    retryStrategy: (times) => Math.min(times * 50, 250),
  });
  let reported = '';
  redis.on('error', (error: Error) => {
    // One line per kind of failure while it lasts, not one per reconnect attempt.
    if (error.message === reported) return;
    reported = error.message;
    logger.warn({ error: error.message }, 'redis error');
  });
  const health = dependencyHealth.probe('redis');
  probes.set(redis, health);
  redis.on('ready', () => {
    reported = '';
    health.report(true);
  });
  redis.on('close', () => health.report(false));
  redis.on('end', () => health.close());
  try {
    await redis.connect();
  } catch (error) {
    health.close();
    throw error;
  }
  logger.info('connected to Redis');
  return redis;
}

const probes = new WeakMap<Redis, DependencyProbe>();

/** The health probe of a client made by connectRedis (undefined for others). */
export function redisProbe(redis: Redis): DependencyProbe | undefined {
  return probes.get(redis);
}

/** A Redis failure that means Redis cannot serve (any error but a reply Redis gave). */
export function isRedisOutage(error: unknown): boolean {
  return error instanceof Error && !(error instanceof ReplyError);
}
