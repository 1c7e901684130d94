import { randomUUID } from 'node:crypto';
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
import { BoundedMap } from '../memory/bounded-map';

interface Entry<T> {
  value: T;
  /** Epoch ms; undefined = never expires. */
  expiresAt?: number;
}

/** A map whose entries expire lazily (checked on access), like Redis keys with a TTL. */
class ExpiringMap<T> {
  private readonly entries = new Map<string, Entry<T>>();

  get(key: string): Entry<T> | undefined {
    const entry = this.entries.get(key);
    if (entry?.expiresAt !== undefined && entry.expiresAt <= Date.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry;
  }

  set(key: string, value: T, expiresAt?: number): void {
    this.entries.set(key, { value, expiresAt });
  }

  delete(key: string): void {
    this.entries.delete(key);
  }
}

function expiryOf(ttlMs: number | undefined): number | undefined {
  return ttlMs !== undefined && ttlMs > 0 ? Date.now() + ttlMs : undefined;
}

class InMemoryCounters implements Counters {
  private readonly values = new ExpiringMap<number>();

  async incrementBy(key: string, amount: number, ttlSeconds?: number): Promise<number> {
    checkInteger('amount', amount);
    return this.add(key, amount, ttlSeconds);
  }

  async get(key: string): Promise<number> {
    return this.values.get(key)?.value ?? 0;
  }

  async reserve(
    key: string,
    amount: number,
    limit: number,
    ttlSeconds?: number,
    options: ReserveOptions = {},
  ): Promise<Reservation> {
    checkPositive('amount', amount);
    checkInteger('limit', limit);
    const entry = this.values.get(key);
    if (!entry && options.onlyIfExists) return { granted: false, total: 0, missing: true };
    const current = entry?.value ?? 0;
    if (current + amount > limit) return { granted: false, total: current };
    return { granted: true, total: this.add(key, amount, ttlSeconds) };
  }

  async setIfAbsent(
    key: string,
    value: number,
    ttlSeconds: number,
  ): Promise<{ created: boolean; total: number }> {
    checkInteger('value', value);
    const entry = this.values.get(key);
    if (entry) return { created: false, total: entry.value };
    this.values.set(key, value, expiryOf(ttlSeconds * 1000));
    return { created: true, total: value };
  }

  async release(key: string, amount: number): Promise<number> {
    checkPositive('amount', amount);
    return this.giveBack(key, amount);
  }

  async adjust(changes: CounterChange[]): Promise<number[]> {
    for (const change of changes) checkInteger('amount', change.amount);
    return changes.map(({ key, amount, ttlSeconds, onlyIfExists }) => {
      if (amount > 0 && (!onlyIfExists || this.values.get(key)))
        return this.add(key, amount, ttlSeconds);
      return this.giveBack(key, -amount);
    });
  }

  /** Whether amount fits within limit now (missing: absent, and only an existing one may be used). */
  fits(key: string, amount: number, limit: number, onlyIfExists?: boolean) {
    const entry = this.values.get(key);
    if (!entry && onlyIfExists) return { fits: false, total: 0, missing: true };
    const total = entry?.value ?? 0;
    return { fits: total + amount <= limit, total };
  }

  private giveBack(key: string, amount: number): number {
    const entry = this.values.get(key);
    if (!entry) return 0;
    const total = Math.max(0, entry.value - amount);
    this.values.set(key, total, entry.expiresAt);
    return total;
  }

  /** The TTL applies when the counter is created, as with the Redis implementation. */
  add(key: string, amount: number, ttlSeconds?: number): number {
    const entry = this.values.get(key);
    const total = (entry?.value ?? 0) + amount;
    const expiresAt = entry
      ? entry.expiresAt
      : expiryOf(ttlSeconds === undefined ? undefined : ttlSeconds * 1000);
    this.values.set(key, total, expiresAt);
    return total;
  }
}

/**
 * One key's sliding log: hits in time order from `head` on, with their summed weight kept, so a
 * hit costs O(1) amortized instead of a pass over every hit in the window (at a high limit the
 * window holds tens of thousands).
 */
class HitLog {
  at: number[] = [];
  weight: number[] = [];
  head = 0;
  used = 0;

  /** Drops the hits that left the window; compacts once the dead prefix is half the arrays. */
  expire(since: number): void {
    while (this.head < this.at.length && this.at[this.head]! <= since) {
      this.used -= this.weight[this.head]!;
      this.head += 1;
    }
    if (this.head > 1024 && this.head * 2 > this.at.length) {
      this.at = this.at.slice(this.head);
      this.weight = this.weight.slice(this.head);
      this.head = 0;
    }
  }

  get size(): number {
    return this.at.length - this.head;
  }

  /** When enough weight will have left for `needed` more (windowMs if it never fits). */
  resetMs(allowed: boolean, needed: number, now: number, windowMs: number): number {
    if (this.size === 0) return 0;
    if (allowed) return this.at[this.head]! + windowMs - now;
    let freed = 0;
    for (let i = this.head; i < this.at.length; i += 1) {
      freed += this.weight[i]!;
      if (freed >= needed) return this.at[i]! + windowMs - now;
    }
    return windowMs; // heavier than the limit itself: it never fits
  }
}

class InMemoryRateLimiter implements RateLimiter {
  private readonly logs = new Map<string, HitLog>();

  async slidingWindowHit(
    key: string,
    windowMs: number,
    limit: number,
    weight = 1,
  ): Promise<RateLimitDecision> {
    checkPositive('windowMs', windowMs);
    checkPositive('weight', weight);
    checkInteger('limit', limit);
    return this.hit(key, windowMs, limit, weight);
  }

  hit(key: string, windowMs: number, limit: number, weight: number): RateLimitDecision {
    const now = Date.now();
    const log = this.logs.get(key) ?? new HitLog();
    log.expire(now - windowMs);
    const allowed = log.used + weight <= limit;
    if (allowed) {
      log.at.push(now);
      log.weight.push(weight);
      log.used += weight;
    }
    if (log.size > 0) this.logs.set(key, log);
    else this.logs.delete(key);
    return {
      allowed,
      remaining: Math.max(0, limit - log.used),
      resetMs: log.resetMs(allowed, log.used + weight - limit, now, windowMs),
    };
  }
}

class InMemoryLocks implements Locks {
  private readonly holders = new ExpiringMap<string>();

  async acquire(key: string, ttlMs: number): Promise<string | undefined> {
    checkPositive('ttlMs', ttlMs);
    if (this.holders.get(key)) return undefined;
    const token = randomUUID();
    this.holders.set(key, token, expiryOf(ttlMs));
    return token;
  }

  async release(key: string, token: string): Promise<boolean> {
    if (this.holders.get(key)?.value !== token) return false;
    this.holders.delete(key);
    return true;
  }

  async extend(key: string, token: string, ttlMs: number): Promise<boolean> {
    checkPositive('ttlMs', ttlMs);
    if (this.holders.get(key)?.value !== token) return false;
    this.holders.set(key, token, expiryOf(ttlMs));
    return true;
  }
}

/** The Redis script's semantics in one synchronous step (nothing interleaves it). */
function admit(
  counters: InMemoryCounters,
  limiter: InMemoryRateLimiter,
  { hits, reservations }: Admission,
): AdmissionResult {
  checkAdmission({ hits, reservations });
  const decisions: AdmissionResult['hits'] = [];
  for (const { key, windowMs, limit, weight } of hits) {
    const decision = limiter.hit(key, windowMs, limit, weight);
    decisions.push(decision);
    if (!decision.allowed) return { hits: decisions, reservations: [] };
  }
  const checked = reservations.map((r) => counters.fits(r.key, r.amount, r.limit, r.onlyIfExists));
  if (!checked.every((c) => c.fits))
    return {
      hits: decisions,
      reservations: checked.map((c) => ({
        granted: false,
        total: c.total,
        ...(c.missing && { missing: true }),
      })),
    };
  return {
    hits: decisions,
    reservations: reservations.map((r) => ({
      granted: true,
      total: counters.add(r.key, r.amount, r.ttlSeconds),
    })),
  };
}

/** Idempotency records in memory: a bounded map (see IN_MEMORY_IDEMPOTENCY_KEYS). */
class InMemoryIdempotencyKeys implements IdempotencyKeys {
  private readonly values: BoundedMap<string>;

  constructor(maxKeys: number) {
    this.values = new BoundedMap(maxKeys);
  }

  async remember(key: string, value: string, ttlSeconds: number): Promise<string | undefined> {
    checkPositive('ttlSeconds', ttlSeconds);
    const existing = this.values.get(key);
    if (existing !== undefined) return existing;
    this.values.set(key, value, expiryOf(ttlSeconds * 1000));
    return undefined;
  }

  async forget(key: string): Promise<void> {
    this.values.delete(key);
  }
}

/**
 * Idempotency records one process keeps at most (embedded mode: every keyed call adds one, for a
 * day). Beyond it the oldest record goes first: a retry of its key then runs again, and the
 * service that did the work answers it from its own kept answer if it still has it.
 */
export const IN_MEMORY_IDEMPOTENCY_KEYS = 10_000;

/** SharedState for one process (embedded mode, tests): correct only while there is one replica. */
export function createInMemorySharedState(
  options: { maxIdempotencyKeys?: number } = {},
): SharedState {
  const counters = new InMemoryCounters();
  const rateLimiter = new InMemoryRateLimiter();
  return {
    admit: async (admission) => admit(counters, rateLimiter, admission),
    counters,
    rateLimiter,
    locks: new InMemoryLocks(),
    idempotencyKeys: new InMemoryIdempotencyKeys(
      options.maxIdempotencyKeys ?? IN_MEMORY_IDEMPOTENCY_KEYS,
    ),
    close: async () => undefined,
  };
}
