import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { createInMemorySharedState } from './in-memory-shared-state';
import { connectRedis } from './redis';
import { RedisScripts, type RedisScript } from './redis-scripts';
import * as scripts from './redis-shared-state-scripts';
import {
  checkAdmission,
  checkInteger,
  checkPositive,
  type Admission,
  type AdmissionResult,
  type CounterChange,
  type Counters,
  type IdempotencyKeys,
  type Locks,
  type RateLimitDecision,
  type RateLimiter,
  type Reservation,
  type ReserveOptions,
  type SharedState,
} from './shared-state';

type ScriptName =
  | 'syAdmit'
  | 'syAdjust'
  | 'syIncrementBy'
  | 'syReserve'
  | 'syRelease'
  | 'sySetIfAbsent'
  | 'sySlidingWindowHit'
  | 'syReleaseLock'
  | 'syExtendLock'
  | 'syRemember';
const SCRIPTS: Record<ScriptName, RedisScript> = {
  syAdmit: { keys: 'dynamic', lua: scripts.ADMIT },
  syAdjust: { keys: 'dynamic', lua: scripts.ADJUST },
  syIncrementBy: { keys: 1, lua: scripts.INCREMENT_BY },
  syReserve: { keys: 1, lua: scripts.RESERVE },
  syRelease: { keys: 1, lua: scripts.RELEASE },
  sySetIfAbsent: { keys: 1, lua: scripts.SET_IF_ABSENT },
  sySlidingWindowHit: { keys: 2, lua: scripts.SLIDING_WINDOW_HIT },
  syReleaseLock: { keys: 1, lua: scripts.RELEASE_LOCK },
  syExtendLock: { keys: 1, lua: scripts.EXTEND_LOCK },
  syRemember: { keys: 1, lua: scripts.REMEMBER },
};

type ScriptRunner = RedisScripts<ScriptName>;

class RedisCounters implements Counters {
  constructor(
    private readonly scripts: ScriptRunner,
    private readonly prefix: string,
  ) {}

  async incrementBy(key: string, amount: number, ttlSeconds = 0): Promise<number> {
    checkInteger('amount', amount);
    return this.scripts.run<number>(
      'syIncrementBy',
      this.key(key),
      amount,
      Math.max(0, Math.ceil(ttlSeconds)),
    );
  }

  async get(key: string): Promise<number> {
    return Number((await this.scripts.command((redis) => redis.get(this.key(key)))) ?? 0);
  }

  async reserve(
    key: string,
    amount: number,
    limit: number,
    ttlSeconds = 0,
    options: ReserveOptions = {},
  ): Promise<Reservation> {
    checkPositive('amount', amount);
    checkInteger('limit', limit);
    const ttl = Math.max(0, Math.ceil(ttlSeconds));
    const [granted, total] = await this.scripts.run<[number, number]>(
      'syReserve',
      this.key(key),
      amount,
      limit,
      ttl,
      options.onlyIfExists ? 1 : 0,
    );
    return granted === -1
      ? { granted: false, total: 0, missing: true }
      : { granted: granted === 1, total };
  }

  async setIfAbsent(
    key: string,
    value: number,
    ttlSeconds: number,
  ): Promise<{ created: boolean; total: number }> {
    checkInteger('value', value);
    const [created, total] = await this.scripts.run<[number, number]>(
      'sySetIfAbsent',
      this.key(key),
      value,
      Math.max(1, Math.ceil(ttlSeconds)),
    );
    return { created: created === 1, total };
  }

  async release(key: string, amount: number): Promise<number> {
    checkPositive('amount', amount);
    return this.scripts.run<number>('syRelease', this.key(key), amount);
  }

  async adjust(changes: CounterChange[]): Promise<number[]> {
    if (changes.length === 0) return [];
    for (const change of changes) checkInteger('amount', change.amount);
    return this.scripts.run<number[]>(
      'syAdjust',
      changes.length,
      ...changes.map((c) => this.key(c.key)),
      ...changes.flatMap((c) => [c.amount, ttlOf(c.ttlSeconds), c.onlyIfExists ? 1 : 0]),
    );
  }

  key(key: string): string {
    return `${this.prefix}counter:${key}`;
  }
}

class RedisRateLimiter implements RateLimiter {
  constructor(
    private readonly scripts: ScriptRunner,
    private readonly prefix: string,
  ) {}

  async slidingWindowHit(
    key: string,
    windowMs: number,
    limit: number,
    weight = 1,
  ): Promise<RateLimitDecision> {
    checkPositive('windowMs', windowMs);
    checkPositive('weight', weight);
    checkInteger('limit', limit);
    const [log, sum] = this.keys(key);
    const [allowed, remaining, resetMs] = await this.scripts.run<[number, number, number]>(
      'sySlidingWindowHit',
      log,
      sum,
      windowMs,
      limit,
      weight,
      randomUUID(),
    );
    return { allowed: allowed === 1, remaining, resetMs };
  }

  /**
   * A window's log and sum. Both share a hash tag (Redis Cluster runs a script only on one slot):
   * the key's own when it has one (so it can share a slot with other keys of a call), else the key.
   */
  keys(key: string): [string, string] {
    const base = HASH_TAG.test(key)
      ? `${this.prefix}ratelimit:${key}`
      : `${this.prefix}ratelimit:{${key}}`;
    return [`${base}:log`, `${base}:sum`];
  }
}

/** A Redis Cluster hash tag: the first {...} with something inside. */
const HASH_TAG = /\{[^}]+\}/;

function ttlOf(ttlSeconds: number | undefined): number {
  return Math.max(0, Math.ceil(ttlSeconds ?? 0));
}

/** One call's hits and reservations, one script. */
async function admit(
  scripts: ScriptRunner,
  counters: RedisCounters,
  limiter: RedisRateLimiter,
  admission: Admission,
): Promise<AdmissionResult> {
  const { hits, reservations } = admission;
  checkAdmission(admission);
  const keys = [
    ...hits.flatMap((hit) => limiter.keys(hit.key)),
    ...reservations.map((r) => counters.key(r.key)),
  ];
  const out = await scripts.run<number[]>(
    'syAdmit',
    keys.length,
    ...keys,
    hits.length,
    randomUUID(),
    ...hits.flatMap((hit) => [hit.windowMs, hit.limit, hit.weight]),
    ...reservations.flatMap((r) => [
      r.amount,
      r.limit,
      ttlOf(r.ttlSeconds),
      r.onlyIfExists ? 1 : 0,
    ]),
  );
  const decisions: AdmissionResult['hits'] = [];
  let at = 0;
  while (decisions.length < hits.length && at < out.length) {
    decisions.push({ allowed: out[at] === 1, remaining: out[at + 1]!, resetMs: out[at + 2]! });
    at += 3;
    if (!decisions.at(-1)!.allowed) return { hits: decisions, reservations: [] };
  }
  const made: AdmissionResult['reservations'] = [];
  for (; at < out.length; at += 2)
    made.push(
      out[at] === -1
        ? { granted: false, total: 0, missing: true }
        : { granted: out[at] === 1, total: out[at + 1]! },
    );
  return { hits: decisions, reservations: made };
}

class RedisLocks implements Locks {
  constructor(
    private readonly scripts: ScriptRunner,
    private readonly prefix: string,
  ) {}

  async acquire(key: string, ttlMs: number): Promise<string | undefined> {
    checkPositive('ttlMs', ttlMs);
    const token = randomUUID();
    const result = await this.scripts.command((redis) =>
      redis.set(this.key(key), token, 'PX', ttlMs, 'NX'),
    );
    return result === 'OK' ? token : undefined;
  }

  async release(key: string, token: string): Promise<boolean> {
    return (await this.scripts.run<number>('syReleaseLock', this.key(key), token)) === 1;
  }

  async extend(key: string, token: string, ttlMs: number): Promise<boolean> {
    checkPositive('ttlMs', ttlMs);
    return (await this.scripts.run<number>('syExtendLock', this.key(key), token, ttlMs)) === 1;
  }

  private key(key: string): string {
    return `${this.prefix}lock:${key}`;
  }
}

class RedisIdempotencyKeys implements IdempotencyKeys {
  constructor(
    private readonly scripts: ScriptRunner,
    private readonly prefix: string,
  ) {}

  async remember(key: string, value: string, ttlSeconds: number): Promise<string | undefined> {
    checkPositive('ttlSeconds', ttlSeconds);
    const existing = await this.scripts.run<string | null>(
      'syRemember',
      this.key(key),
      value,
      ttlSeconds,
    );
    return existing ?? undefined;
  }

  async forget(key: string): Promise<void> {
    await this.scripts.command((redis) => redis.del(this.key(key)));
  }

  private key(key: string): string {
    return `${this.prefix}idem:${key}`;
  }
}

export interface RedisSharedStateOptions {
  /** Put before every key, e.g. 'switchyard:gateway:' (keeps services and tests apart). */
  prefix: string;
  /** close() quits the connection (true when this state created it). */
  ownsConnection?: boolean;
}

/** SharedState on Redis: every operation is one atomic command or Lua script. */
export function createRedisSharedState(
  redis: Redis,
  options: RedisSharedStateOptions,
): SharedState {
  const scripts = new RedisScripts(redis, SCRIPTS);
  const { prefix } = options;
  const counters = new RedisCounters(scripts, prefix);
  const rateLimiter = new RedisRateLimiter(scripts, prefix);
  return {
    admit: (admission) => admit(scripts, counters, rateLimiter, admission),
    counters,
    rateLimiter,
    locks: new RedisLocks(scripts, prefix),
    idempotencyKeys: new RedisIdempotencyKeys(scripts, prefix),
    close: async () => {
      if (!options.ownsConnection) return;
      // quit() is a command: without a connection it cannot be sent, so the client just stops.
      if (redis.status === 'ready') await redis.quit().catch(() => redis.disconnect());
      else redis.disconnect();
    },
  };
}

/** Redis when redisUrl is set, else in-memory state (correct only with a single replica). */
export async function createSharedState(options: {
  redisUrl: string;
  prefix: string;
  logger: Logger;
}): Promise<SharedState> {
  if (!options.redisUrl.trim()) {
    options.logger.warn(
      'REDIS_URL is not set: shared state (quotas, rate limits, locks) stays in this process',
    );
    return createInMemorySharedState();
  }
  const redis = await connectRedis(options.redisUrl, options.logger);
  return createRedisSharedState(redis, { prefix: options.prefix, ownsConnection: true });
}
