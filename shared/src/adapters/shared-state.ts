/**
 * State shared by every replica of a service: counters (quotas), rate limits, locks and
 * idempotency keys. In-memory for embedded mode and tests, Redis when REDIS_URL is set.
 * Keys are plain strings chosen by the caller; implementations add their own prefix.
 */

export interface Reservation {
  /** The amount was added (the total stays within the limit). */
  granted: boolean;
  /** The counter after the call (unchanged when not granted). */
  total: number;
  /** Not granted because the counter does not exist (asked with onlyIfExists: e.g. lost with Redis). */
  missing?: boolean;
}

export interface ReserveOptions {
  /** Refuse (missing: true) rather than create an absent counter: a counter lost must be rebuilt first. */
  onlyIfExists?: boolean;
}

/** Integer counters, e.g. tokens used this month. A TTL is set when the counter is created. */
export interface Counters {
  /** Adds amount (may be negative) and returns the new total. */
  incrementBy(key: string, amount: number, ttlSeconds?: number): Promise<number>;
  /** 0 when the counter does not exist (or expired). */
  get(key: string): Promise<number>;
  /** Atomically adds amount only if the total stays <= limit. */
  reserve(
    key: string,
    amount: number,
    limit: number,
    ttlSeconds?: number,
    options?: ReserveOptions,
  ): Promise<Reservation>;
  /** Creates the counter with value unless it exists; returns whether it did, and the total either way. */
  setIfAbsent(
    key: string,
    value: number,
    ttlSeconds: number,
  ): Promise<{ created: boolean; total: number }>;
  /** Gives back a reserved amount; the total never drops below 0. Returns the new total. */
  release(key: string, amount: number): Promise<number>;
  /**
   * Several changes in one atomic step (one round trip on Redis): a positive amount is added (an
   * absent counter created with ttlSeconds, or with onlyIfExists left absent), a negative one given
   * back (never below 0; an absent counter stays absent). Returns each counter's total after it (0
   * for one left absent). On Redis Cluster the keys of one call must share a hash tag.
   */
  adjust(changes: CounterChange[]): Promise<number[]>;
}

/** One change of adjust(). */
export interface CounterChange {
  key: string;
  /** Integer; 0 changes nothing. */
  amount: number;
  ttlSeconds?: number;
  onlyIfExists?: boolean;
}

/** A sliding-window hit of an admission (see RateLimiter.slidingWindowHit). */
export interface WindowHit {
  key: string;
  windowMs: number;
  limit: number;
  weight: number;
}

/** A counter reservation of an admission (see Counters.reserve). */
export interface CounterReservation {
  key: string;
  amount: number;
  limit: number;
  ttlSeconds?: number;
  onlyIfExists?: boolean;
}

/**
 * The per-call state of a request in one atomic step: rate-limit hits, then reservations on
 * counters. Every key of one admission shares a hash tag (one Redis Cluster slot).
 */
export interface Admission {
  /** Tried in order, each counted if allowed; the first one refused ends the admission. */
  hits: WindowHit[];
  /** Tried only when every hit was allowed: all are made, or (one does not fit) none is. */
  reservations: CounterReservation[];
}

export interface AdmissionResult {
  /** One decision per hit tried: all of them, or up to and including the refused one. */
  hits: RateLimitDecision[];
  /**
   * When every hit was allowed, one per reservation: all granted (made; total after), or none
   * (total as it is; missing: absent with onlyIfExists); empty when a hit was refused.
   */
  reservations: Reservation[];
}

export interface RateLimitDecision {
  allowed: boolean;
  /** Weight still available in the current window after this hit. */
  remaining: number;
  /**
   * Denied: ms until a hit of this weight would fit (for Retry-After).
   * Allowed: ms until the oldest counted hit leaves the window (capacity starts coming back).
   */
  resetMs: number;
}

/** Exact sliding-window rate limiting: at most `limit` weight in any window of `windowMs`. */
export interface RateLimiter {
  slidingWindowHit(
    key: string,
    windowMs: number,
    limit: number,
    weight?: number,
  ): Promise<RateLimitDecision>;
}

/** Mutual exclusion across replicas; a lock expires after its TTL if its holder dies. */
export interface Locks {
  /** A token identifying this holding, or undefined when someone else holds the lock. */
  acquire(key: string, ttlMs: number): Promise<string | undefined>;
  /** Releases only if token still holds the lock (compare-and-delete); false otherwise. */
  release(key: string, token: string): Promise<boolean>;
  /** Resets the TTL to ttlMs if token still holds the lock (a long task keeps it); false when it was lost. */
  extend(key: string, token: string, ttlMs: number): Promise<boolean>;
}

/** Set-if-absent records, e.g. the response id stored for an Idempotency-Key. */
export interface IdempotencyKeys {
  /** Stores value unless the key exists; returns the existing value, or undefined if value was stored. */
  remember(key: string, value: string, ttlSeconds: number): Promise<string | undefined>;
  /** Removes the key (e.g. when the remembered operation failed and may be retried). */
  forget(key: string): Promise<void>;
}

export interface SharedState {
  /** Rate-limit hits and counter reservations of one call together (the rate limiter's windows, the counters'). */
  admit(admission: Admission): Promise<AdmissionResult>;
  counters: Counters;
  rateLimiter: RateLimiter;
  locks: Locks;
  idempotencyKeys: IdempotencyKeys;
  close(): Promise<void>;
}

/** Counter amounts and limits are integers (Redis INCRBY); anything else is a programming error. */
export function checkInteger(name: string, value: number): void {
  if (!Number.isSafeInteger(value))
    throw new RangeError(`${name} must be an integer, got ${value}`);
}

export function checkPositive(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value <= 0)
    throw new RangeError(`${name} must be a positive integer, got ${value}`);
}

/** An admission's weights, amounts and limits are integers (hits' windows and weights positive). */
export function checkAdmission({ hits, reservations }: Admission): void {
  for (const hit of hits) {
    checkPositive('windowMs', hit.windowMs);
    checkPositive('weight', hit.weight);
    checkInteger('limit', hit.limit);
  }
  for (const reservation of reservations) {
    checkPositive('amount', reservation.amount);
    checkInteger('limit', reservation.limit);
  }
}
