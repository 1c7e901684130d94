import { AppError, type Logger, type SharedState } from '@switchyard/shared';
import type { OrganizationPolicy } from '../read-models/organization-directory';
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

/** The organization is the hash tag: the call's rate limits and budgets share its slot. */
export function quotaKey(organization: string, period: string): string {
  return `quota:{${organization}}:${period}`;
}

/** One period's quota counter of one organization, as a call reserves on it. */
export interface QuotaCounter {
  policy: OrganizationPolicy;
  period: Period;
  key: string;
  ttl: number;
  /** The hard quota, or no limit (a soft quota only counts). */
  limit: number;
}

/**
 * Monthly token quotas on shared-state counters (quota:{<org>}:<YYYY-MM>). A call reserves its
 * estimate atomically before it runs (hard quotas: only within the quota), in the call's one
 * admission script (Metering), and settles the difference to its real usage afterwards. Replicas
 * sharing Redis can overshoot only by what calls already in flight use beyond their estimates.
 *
 * A counter is never created by a reservation: a missing one (new period, Redis restarted or
 * wiped) is rebuilt first, under a lock, from the larger of the durable hard-quota tallies and
 * the usage ledger; calls wait for it. Redis admits, the tallies and the ledger reconcile: a
 * hard-quota reservation is written to the tallies off the call path (DurableQuota, batched), so
 * after a wipe a hard quota is overshot by at most what calls in flight, and those of the last
 * tally write's linger, used; the usage events carry every call, so the ledger counts them once
 * it has them.
 */
export class QuotaGuard {
  private readonly seededUntil = new Map<string, number>();
  private readonly now: () => Date;

  constructor(private readonly deps: QuotaGuardDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  /** The counter a call of this organization reserves on now (undefined: no quota), the ledger added if it is due. */
  async counterOf(policy: OrganizationPolicy): Promise<QuotaCounter | undefined> {
    if (policy.monthlyTokenQuota === undefined) return undefined;
    const now = this.now();
    const period = periodOf(now);
    const counter: QuotaCounter = {
      policy,
      period,
      key: quotaKey(policy.id, period.name),
      ttl: counterTtl(period, now),
      limit: policy.hardQuota ? policy.monthlyTokenQuota : Number.MAX_SAFE_INTEGER,
    };
    await this.addLedgerIfNeeded(counter);
    return counter;
  }

  /**
   * The counter was missing: rebuilds it (or waits while another replica does). 503 once the
   * call has waited REBUILD_WAIT_MS since `since` (ms).
   */
  async rebuild(counter: QuotaCounter, since: number): Promise<void> {
    if (Date.now() >= since + REBUILD_WAIT_MS)
      throw new AppError('unavailable', 'the quota counter is being rebuilt; try again', [], 1);
    if (!(await this.seed(counter))) await sleep(REBUILD_RETRY_MS);
  }

  /** The hard quota refused a call whose counter stood at `used`. */
  refused(counter: QuotaCounter, used: number): AppError {
    const quota = counter.policy.monthlyTokenQuota!;
    this.deps.onExhausted?.(counter.policy.id, counter.period.name, quota, used);
    return quotaExceeded(quota, used, secondsUntilEnd(counter.period, this.now()));
  }

  /**
   * A reservation was granted (delta: the estimate) or settled (delta: real - estimate): a hard
   * quota's tally follows, off the call path.
   */
  keep(counter: QuotaCounter, delta: number, callId: string): void {
    if (!counter.policy.hardQuota || delta === 0) return;
    void this.deps.durable
      .add(counter.policy.id, counter.period.name, delta)
      .catch((error: unknown) =>
        this.deps.logger.warn(
          { err: error, requestId: callId, key: counter.key },
          'a hard-quota tally write failed; the usage ledger still counts the call',
        ),
      );
  }

  /** Tokens counted for the organization in the current period. */
  used(organization: string): Promise<number> {
    return this.deps.state.counters.get(quotaKey(organization, periodOf(this.now()).name));
  }

  /**
   * The ledger's count is added once per period counter (flag quota-seeded:...): when the counter
   * was rebuilt while the ledger was unreachable, a later call adds what the ledger has beyond
   * the durable tallies. Checked at most once a second per replica.
   */
  private async addLedgerIfNeeded(counter: QuotaCounter): Promise<void> {
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
  private async seed(counter: QuotaCounter): Promise<boolean> {
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
  private async ledgerUsed(counter: QuotaCounter): Promise<number | undefined> {
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

function seedFlag(counter: QuotaCounter): string {
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
