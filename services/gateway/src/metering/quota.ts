import { AppError, type Logger, type Reservation, type SharedState } from '@switchyard/shared';
import type { OrganizationPolicy } from './organization-directory';
import { periodOf, secondsUntilEnd, type Period } from './period';
import type { DurableQuota } from './durable-quota';

/** Tokens the usage ledger (notification.GetUsage) has recorded for an organization in a period. */
export type UsedTokens = (organization: string, period: string) => Promise<number>;

/** Counters outlive their month a little, so late settlements still find them. */
const COUNTER_GRACE_SECONDS = 7 * 24 * 3600;
/** How long one replica trusts that a period's counter has the ledger's count, before checking again. */
const SEEDED_MEMO_MS = 1000;
const SEED_LOCK_MS = 10_000;
/** How long a billable call waits for a lost counter to be rebuilt before it is refused with 503. */
const REBUILD_WAIT_MS = 5000;
const REBUILD_RETRY_MS = 25;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface QuotaGuardDeps {
  state: Pick<SharedState, 'counters' | 'locks'>;
  usedTokens: UsedTokens;
  /** Hard-quota tokens kept durably: where a counter lost with Redis is rebuilt from. */
  durable: DurableQuota;
  logger: Logger;
  now?: () => Date;
  /** A hard quota refused a call (notification fires the 100% threshold). */
  onExhausted?: (organization: string, period: string, quota: number, used: number) => void;
}

export function quotaKey(organization: string, period: string): string {
  return `quota:${organization}:${period}`;
}

/** A granted reservation: settle it with the real count, release it on failure, or keep it (202). */
export interface QuotaHold {
  readonly estimate: number;
  settle(realTokens: number): Promise<void>;
  release(): Promise<void>;
}

const UNMETERED: QuotaHold = {
  estimate: 0,
  settle: async () => undefined,
  release: async () => undefined,
};

/** One period's counter of one organization. */
interface CounterRef {
  policy: OrganizationPolicy;
  period: Period;
  key: string;
  ttl: number;
}

/**
 * Monthly token quotas on shared-state counters (quota:<org>:<YYYY-MM>). A call reserves its
 * estimate atomically before it runs (hard quotas: only within the quota), and settles the
 * difference to its real usage afterwards. Replicas sharing Redis can overshoot only by what
 * calls already in flight use beyond their estimates.
 *
 * A counter is never created by a reservation: a missing one (new period, Redis restarted or
 * wiped) is rebuilt first, under a lock, from the larger of the durable hard-quota tallies
 * (a hard-quota call runs only once its estimate is written there, so they are never behind
 * for calls that ran) and the usage ledger (which also knows usage from before tallies were
 * kept); calls wait for it. So after a wipe a hard quota is overshot by at most what calls in
 * flight use beyond their estimates.
 */
export class QuotaGuard {
  private readonly seededUntil = new Map<string, number>();
  private readonly now: () => Date;

  constructor(private readonly deps: QuotaGuardDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  /** callId: the request id (named in logs). */
  async reserve(policy: OrganizationPolicy, estimate: number, callId: string): Promise<QuotaHold> {
    if (policy.monthlyTokenQuota === undefined) return UNMETERED;
    const now = this.now();
    const period = periodOf(now);
    const counter: CounterRef = {
      policy,
      period,
      key: quotaKey(policy.id, period.name),
      ttl: counterTtl(period, now),
    };
    await this.addLedgerIfNeeded(counter);
    const reservation = await this.reserveRebuilding(counter, estimate);
    if (!reservation.granted) {
      this.deps.onExhausted?.(policy.id, period.name, policy.monthlyTokenQuota, reservation.total);
      throw quotaExceeded(
        policy.monthlyTokenQuota,
        reservation.total,
        secondsUntilEnd(period, now),
      );
    }
    if (policy.hardQuota) await this.keepDurably(counter, estimate, callId);
    return this.hold(counter, estimate, policy.hardQuota === true);
  }

  /** Tokens counted for the organization in the current period. */
  used(organization: string): Promise<number> {
    return this.deps.state.counters.get(quotaKey(organization, periodOf(this.now()).name));
  }

  private async reserveRebuilding(counter: CounterRef, estimate: number): Promise<Reservation> {
    const limit = counter.policy.hardQuota
      ? counter.policy.monthlyTokenQuota!
      : Number.MAX_SAFE_INTEGER;
    const deadline = Date.now() + REBUILD_WAIT_MS;
    for (;;) {
      const reservation = await this.deps.state.counters.reserve(
        counter.key,
        estimate,
        limit,
        counter.ttl,
        { onlyIfExists: true },
      );
      if (!reservation.missing) return reservation;
      if (Date.now() >= deadline)
        throw new AppError('unavailable', 'the quota counter is being rebuilt; try again', [], 1);
      if (!(await this.seed(counter))) await sleep(REBUILD_RETRY_MS);
    }
  }

  /** A hard-quota reservation not kept durably could be lost with Redis: the call does not run. */
  private async keepDurably(counter: CounterRef, estimate: number, callId: string): Promise<void> {
    try {
      await this.deps.durable.add(counter.policy.id, counter.period.name, estimate);
    } catch (error) {
      await this.deps.state.counters.release(counter.key, estimate).catch(() => undefined);
      this.deps.logger.warn(
        { err: error, requestId: callId },
        'could not keep a hard-quota reservation',
      );
      throw new AppError(
        'unavailable',
        'the quota reservation could not be recorded; try again',
        [],
        1,
      );
    }
  }

  private hold(counter: CounterRef, estimate: number, durable: boolean): QuotaHold {
    const { counters } = this.deps.state;
    const { logger } = this.deps;
    const { key, ttl } = counter;
    // Settlements are written without holding up the answer: the estimate already is durable, so
    // a lost settlement leaves the tally off by one call's difference, never behind a call that ran.
    const keepLater = (tokens: number) =>
      void this.deps.durable
        .addLater(counter.policy.id, counter.period.name, tokens)
        .catch((error: unknown) =>
          logger.warn({ err: error, key }, 'could not write a quota settlement durably'),
        );
    let done = false;
    const once = async (what: string, work: () => Promise<unknown>) => {
      if (done) return;
      done = true;
      try {
        await work();
      } catch (error) {
        logger.warn({ err: error, key }, `quota ${what} failed; the counter keeps the estimate`);
      }
    };
    return {
      estimate,
      settle: (real) =>
        once('settlement', async () => {
          const tokens = Math.round(real);
          const delta = tokens - estimate;
          if (durable && delta !== 0) keepLater(delta);
          // Not created if lost meanwhile: the rebuild reads this settlement from the tallies.
          if (delta > 0)
            await counters.reserve(key, delta, Number.MAX_SAFE_INTEGER, ttl, {
              onlyIfExists: true,
            });
          if (delta < 0) await counters.release(key, -delta);
        }),
      release: () =>
        once('release', async () => {
          if (durable) keepLater(-estimate);
          await counters.release(key, estimate);
        }),
    };
  }

  /**
   * The ledger's count is added once per period counter (flag quota-seeded:...): when the counter
   * was rebuilt while the ledger was unreachable, a later call adds what the ledger has beyond
   * the durable tallies. Checked at most once a second per replica.
   */
  private async addLedgerIfNeeded(counter: CounterRef): Promise<void> {
    const memo = `${counter.policy.id}:${counter.period.name}`;
    if ((this.seededUntil.get(memo) ?? 0) > Date.now()) return;
    if ((await this.deps.state.counters.get(seedFlag(counter))) > 0) return this.memo(memo);
    await this.seed(counter);
  }

  /**
   * Under the counter's seed lock: creates a missing counter from max(durable tallies,
   * ledger), or adds to an existing one what the ledger has beyond the tallies, once.
   * False when another replica holds the lock (the caller waits and retries).
   */
  private async seed(counter: CounterRef): Promise<boolean> {
    const { counters, locks } = this.deps.state;
    const { policy, period, key, ttl } = counter;
    const lock = `quota-seed:${policy.id}:${period.name}`;
    const token = await locks.acquire(lock, SEED_LOCK_MS);
    if (!token) return false;
    try {
      const flagged = (await counters.get(seedFlag(counter))) > 0;
      const durable = policy.hardQuota ? await this.deps.durable.total(policy.id, period.name) : 0;
      const ledger = flagged ? undefined : await this.ledgerUsed(counter);
      const rebuilt = await counters.setIfAbsent(key, Math.max(durable, ledger ?? 0), ttl);
      if (rebuilt.created)
        this.deps.logger.info(
          { organization: policy.id, period: period.name, durable, ledger, total: rebuilt.total },
          'quota counter rebuilt',
        );
      else if (ledger !== undefined && ledger > durable)
        await counters.reserve(key, ledger - durable, Number.MAX_SAFE_INTEGER, ttl, {
          onlyIfExists: true,
        });
      if (ledger !== undefined) await counters.incrementBy(seedFlag(counter), 1, ttl);
      return true;
    } finally {
      await locks.release(lock, token).catch(() => undefined);
    }
  }

  /** The ledger's count, or undefined while it is unreachable (the counter is then added to later). */
  private async ledgerUsed(counter: CounterRef): Promise<number | undefined> {
    try {
      return Math.round(await this.deps.usedTokens(counter.policy.id, counter.period.name));
    } catch (error) {
      this.deps.logger.warn(
        { err: error, organization: counter.policy.id, period: counter.period.name },
        'could not seed the quota counter from the usage ledger',
      );
      return undefined;
    }
  }

  private memo(key: string): void {
    this.seededUntil.set(key, Date.now() + SEEDED_MEMO_MS);
  }
}

function seedFlag(counter: CounterRef): string {
  return `quota-seeded:${counter.policy.id}:${counter.period.name}`;
}

function counterTtl(period: Period, now: Date): number {
  return secondsUntilEnd(period, now) + COUNTER_GRACE_SECONDS;
}

export function quotaExceeded(quota: number, used: number, retryAfterSeconds: number): AppError {
  return new AppError(
    'quota_exceeded',
    `the organization's monthly token quota (${quota}) is used up until the period ends`,
    [{ reason: 'monthly token quota exhausted', quota, used }],
    retryAfterSeconds,
  );
}
