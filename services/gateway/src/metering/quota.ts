import { AppError, type Logger, type SharedState } from '@switchyard/shared';
import type { OrganizationPolicy } from './organization-directory';
import { periodOf, secondsUntilEnd, type Period } from './period';

/** Tokens the usage ledger (notification.GetUsage) has recorded for an organization in a period. */
export type UsedTokens = (organization: string, period: string) => Promise<number>;

/** Counters outlive their month a little, so late settlements still find them. */
const COUNTER_GRACE_SECONDS = 7 * 24 * 3600;
/** How long one replica trusts that a period's counter was seeded, before checking again. */
const SEEDED_MEMO_MS = 1000;
const SEED_LOCK_MS = 10_000;
const SEED_WAIT_MS = 2000;

export interface QuotaGuardDeps {
  state: Pick<SharedState, 'counters' | 'locks'>;
  usedTokens: UsedTokens;
  logger: Logger;
  now?: () => Date;
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

const UNMETERED: QuotaHold = { estimate: 0, settle: async () => undefined, release: async () => undefined };

/**
 * Monthly token quotas on shared-state counters (quota:<org>:<YYYY-MM>). A call reserves its
 * estimate atomically before it runs (hard quotas: only within the quota), and settles the
 * difference to its real usage afterwards. Replicas sharing Redis can overshoot only by what
 * calls already in flight use beyond their estimates.
 */
export class QuotaGuard {
  private readonly seededUntil = new Map<string, number>();
  private readonly now: () => Date;

  constructor(private readonly deps: QuotaGuardDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  async reserve(policy: OrganizationPolicy, estimate: number): Promise<QuotaHold> {
    if (policy.monthlyTokenQuota === undefined) return UNMETERED;
    const now = this.now();
    const period = periodOf(now);
    const key = quotaKey(policy.id, period.name);
    const ttl = counterTtl(period, now);
    await this.ensureSeeded(policy.id, period, ttl);
    const limit = policy.hardQuota ? policy.monthlyTokenQuota : Number.MAX_SAFE_INTEGER;
    const reservation = await this.deps.state.counters.reserve(key, estimate, limit, ttl);
    if (!reservation.granted) throw quotaExceeded(policy.monthlyTokenQuota, reservation.total, secondsUntilEnd(period, now));
    return this.hold(key, estimate, ttl);
  }

  /** Tokens counted for the organization in the current period. */
  used(organization: string): Promise<number> {
    return this.deps.state.counters.get(quotaKey(organization, periodOf(this.now()).name));
  }

  private hold(key: string, estimate: number, ttl: number): QuotaHold {
    const { counters } = this.deps.state;
    const logger = this.deps.logger;
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
          const delta = Math.round(real) - estimate;
          if (delta > 0) await counters.incrementBy(key, delta, ttl);
          if (delta < 0) await counters.release(key, -delta);
        }),
      release: () => once('release', () => counters.release(key, estimate)),
    };
  }

  /**
   * A period's counter starts from the ledger's used tokens (new month, Redis restarted). One
   * replica seeds under a lock and then sets a flag; the others wait briefly for the flag, so
   * replicas agree and the seed is added once.
   */
  private async ensureSeeded(organization: string, period: Period, ttl: number): Promise<void> {
    const memo = `${organization}:${period.name}`;
    if ((this.seededUntil.get(memo) ?? 0) > Date.now()) return;
    const { counters, locks } = this.deps.state;
    const flag = `quota-seeded:${organization}:${period.name}`;
    if ((await counters.get(flag)) > 0) return this.memo(memo);
    const lock = `quota-seed:${organization}:${period.name}`;
    const token = await locks.acquire(lock, SEED_LOCK_MS);
    if (!token) {
      if (await this.waitForFlag(flag)) this.memo(memo);
      return;
    }
    try {
      if ((await counters.get(flag)) === 0) {
        const used = Math.round(await this.deps.usedTokens(organization, period.name));
        if (used > 0) await counters.incrementBy(quotaKey(organization, period.name), used, ttl);
        await counters.incrementBy(flag, 1, ttl);
      }
      this.memo(memo);
    } catch (error) {
      // The ledger is unreachable: count from here on and try to seed again on the next call.
      this.deps.logger.warn({ err: error, organization, period: period.name }, 'could not seed the quota counter from the usage ledger');
    } finally {
      await locks.release(lock, token);
    }
  }

  private memo(key: string): void {
    this.seededUntil.set(key, Date.now() + SEEDED_MEMO_MS);
  }

  private async waitForFlag(flag: string): Promise<boolean> {
    const deadline = Date.now() + SEED_WAIT_MS;
    while (Date.now() < deadline) {
      if ((await this.deps.state.counters.get(flag)) > 0) return true;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    return false;
  }
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
