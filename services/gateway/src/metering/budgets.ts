import { AppError, wellFormed, type Logger, type SharedState } from '@switchyard/shared';
import type { ApiKeyRecord, Budget } from '../store';
import { secondsUntilEnd, type Period } from './period';

/** Counters outlive their period a little, so late settlements still find them. */
const COUNTER_GRACE_SECONDS = 24 * 3600;
/** Cost counters count in millionths of the currency (integers, as counters are). */
export const COST_UNITS_PER_CURRENCY = 1_000_000;

/** The budget period holding `at`: a UTC day, an ISO week (from Monday) or a UTC month. */
export function budgetPeriodOf(period: Budget['period'], at: Date): Period {
  const [y, m, d] = [at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()];
  if (period === 'month') {
    const start = new Date(Date.UTC(y, m, 1));
    return { name: start.toISOString().slice(0, 7), start, end: new Date(Date.UTC(y, m + 1, 1)) };
  }
  // Days since Monday: getUTCDay() is 0 on Sunday.
  const back = period === 'week' ? (at.getUTCDay() + 6) % 7 : 0;
  const start = new Date(Date.UTC(y, m, d - back));
  const end = new Date(Date.UTC(y, m, d - back + (period === 'week' ? 7 : 1)));
  const name = `${period === 'week' ? 'w' : 'd'}${start.toISOString().slice(0, 10)}`;
  return { name, start, end };
}

export type BudgetLevel = 'key' | 'team' | 'endUser';
export type BudgetMetric = 'tokens' | 'cost';

/** Whose budget it is: a key's, a team's, or one end user's of a key. */
export interface BudgetOwner {
  level: BudgetLevel;
  organization: string;
  /** The key's or the team's id; an end user's key id. */
  id: string;
  /** The end user (level endUser). */
  endUser?: string;
}

/** One limit of one budget a call counts against. */
export interface BudgetRef {
  owner: BudgetOwner;
  budget: Budget;
  metric: BudgetMetric;
  /** In counter units: tokens, or millionths of the currency. */
  limit: number;
  /** The counter's key, its period in the name. */
  key: string;
  period: Period;
}

/** What a call used: tokens, and what they cost (undefined when the service did not say). */
export interface Spend {
  tokens: number;
  cost?: number;
}

/** The budgets a call counts against: its key's, its key's team's, its end user's. */
export interface BudgetScope {
  key?: ApiKeyRecord;
  team?: { teamId: string; organization: string; budget?: Budget };
  endUser?: string;
}

/** One budget limit a call reserves on: its counter, and the amount (counter units). */
export interface BudgetReservation {
  ref: BudgetRef;
  amount: number;
  ttl: number;
}

/** What the usage ledger counted for a budget in its period so far, in counter units. */
export type BudgetSpent = (ref: BudgetRef, lastDay: Date) => Promise<number>;

/** How long a call waits for a lost budget counter to be rebuilt before it is refused with 503. */
const REBUILD_WAIT_MS = 5000;
const REBUILD_RETRY_MS = 25;
const SEED_LOCK_MS = 10_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface BudgetGuardDeps {
  state: Pick<SharedState, 'counters' | 'locks'>;
  /** The ledger's count of a budget: where a counter lost with Redis (or a new period's) starts. */
  spent: BudgetSpent;
  logger: Logger;
  now?: () => Date;
  /** A budget refused a call; used: its counter then (threshold notices). */
  onExceeded?: (ref: BudgetRef, used: number) => void;
  /** A counter moved from `before` to `after` (threshold notices). */
  onCounted?: (ref: BudgetRef, before: number, after: number) => void;
}

/**
 * Token and cost budgets of a key, of its team and of each of its end users, on shared-state
 * counters named by period. A call reserves its estimate on each in its one admission script
 * (Metering), only within the budget and all or none, so concurrent calls cannot pass it
 * together; it settles to its real usage afterwards, as the quota does.
 */
export class BudgetGuard {
  private readonly now: () => Date;

  constructor(private readonly deps: BudgetGuardDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  /** The budget limits a call counts against now, in order: key, team, end user. */
  refsOf(scope: BudgetScope): BudgetRef[] {
    return budgetsOf(scope, this.now());
  }

  /** What a call reserves on each: its tokens, or its estimated cost (0: nothing to reserve). */
  reservations(refs: BudgetRef[], tokens: number, cost: number): BudgetReservation[] {
    const now = this.now();
    return refs.map((ref) => ({
      ref,
      amount: ref.metric === 'tokens' ? tokens : costUnits(cost),
      ttl: ttlOf(ref, now),
    }));
  }

  /**
   * A budget's counter was missing (a new period, Redis restarted or wiped): rebuilt under a lock
   * from what the ledger counted in its period (its key's, team's or end user's day lines), or
   * waited for while another replica does. 503 once the call has waited REBUILD_WAIT_MS since
   * `since` (ms): a budget is not passed because the ledger could not be read. Overshoot after a
   * wipe: what the ledger had not counted yet (calls in flight, the usage events on their way).
   */
  async rebuild(reserved: BudgetReservation, since: number): Promise<void> {
    const { ref, ttl } = reserved;
    if (Date.now() >= since + REBUILD_WAIT_MS)
      throw new AppError('unavailable', 'the budget counter is being rebuilt; try again', [], 1);
    const { counters, locks } = this.deps.state;
    const lock = `budget-seed:${ref.key}`;
    const token = await locks.acquire(lock, SEED_LOCK_MS);
    if (!token) {
      await sleep(REBUILD_RETRY_MS);
      return;
    }
    try {
      const spent = await this.deps.spent(ref, this.now());
      const rebuilt = await counters.setIfAbsent(ref.key, spent, ttl);
      if (rebuilt.created)
        this.deps.logger.info(
          { organization: ref.owner.organization, level: ref.owner.level, total: spent },
          'budget counter rebuilt from the usage ledger',
        );
    } catch (error) {
      this.deps.logger.warn(
        { err: error, organization: ref.owner.organization, level: ref.owner.level },
        'could not rebuild a budget counter from the usage ledger',
      );
      await sleep(REBUILD_RETRY_MS);
    } finally {
      await locks.release(lock, token).catch(() => undefined);
    }
  }

  /** The budget refused a call (its counter at `used`): the 429 to answer. */
  refused(ref: BudgetRef, used: number): AppError {
    this.deps.onExceeded?.(ref, used);
    return budgetExceeded(ref, used, this.now());
  }

  /** A counter moved (a reservation made, a settlement counted). */
  counted(ref: BudgetRef, before: number, after: number): void {
    this.deps.onCounted?.(ref, before, after);
  }

  /**
   * A reservation's change once the call spent `spent`: settled past the limit, the call already
   * ran, and the next one is refused. A service that did not report the cost: the estimate's
   * price per token.
   */
  settlement(
    reserved: BudgetReservation,
    spent: Spend,
    estimate: { tokens: number; cost: number },
  ) {
    const cost =
      spent.cost ?? (estimate.tokens > 0 ? (estimate.cost * spent.tokens) / estimate.tokens : 0);
    const real = reserved.ref.metric === 'tokens' ? Math.round(spent.tokens) : costUnits(cost);
    return real - reserved.amount;
  }
}

/** Cost in counter units, rounded up: a budget is never charged less than was spent. */
export function costUnits(cost: number): number {
  return Math.max(0, Math.ceil(cost * COST_UNITS_PER_CURRENCY - 1e-6));
}

function ttlOf(ref: BudgetRef, now: Date): number {
  return secondsUntilEnd(ref.period, now) + COUNTER_GRACE_SECONDS;
}

/** The counter of one owner's budget metric in a period. */
export function budgetCounterKey(owner: BudgetOwner, metric: BudgetMetric, period: string) {
  // The organization is the hash tag: the call's rate limits and quota share its slot.
  const prefix = `${metric === 'tokens' ? 'budget' : 'budget-cost'}:{${owner.organization}}`;
  if (owner.level === 'team') return `${prefix}:team:${owner.id}:${period}`;
  if (owner.level === 'endUser')
    return `${prefix}:${owner.id}:user:${encodeURIComponent(wellFormed(owner.endUser!))}:${period}`;
  return `${prefix}:${owner.id}:${period}`;
}

function refsOf(owner: BudgetOwner, budget: Budget | undefined, now: Date): BudgetRef[] {
  if (!budget) return [];
  const period = budgetPeriodOf(budget.period, now);
  const limits: [BudgetMetric, number | undefined][] = [
    ['tokens', budget.tokens],
    [
      'cost',
      budget.cost === undefined ? undefined : Math.round(budget.cost * COST_UNITS_PER_CURRENCY),
    ],
  ];
  return limits.flatMap(([metric, limit]) =>
    limit === undefined
      ? []
      : [
          {
            owner,
            budget,
            metric,
            limit,
            period,
            key: budgetCounterKey(owner, metric, period.name),
          },
        ],
  );
}

function budgetsOf({ key, team, endUser }: BudgetScope, now: Date): BudgetRef[] {
  if (!key) return [];
  const { organization, keyId } = key;
  return [
    ...refsOf({ level: 'key', organization, id: keyId }, key.budget, now),
    ...(team ? refsOf({ level: 'team', organization, id: team.teamId }, team.budget, now) : []),
    ...(endUser === undefined
      ? []
      : refsOf({ level: 'endUser', organization, id: keyId, endUser }, key.endUserBudget, now)),
  ];
}

const ADJECTIVE = { day: 'daily', week: 'weekly', month: 'monthly' } as const;
const WHOSE = { key: "this API key's", team: "this key's team's", endUser: "this end user's" };
const REASON = { key: 'key', team: 'team', endUser: 'end-user' };

/** A counter's value as the budget states it: tokens, or cost in the currency. */
export function inBudgetUnits(metric: BudgetMetric, value: number): number {
  return metric === 'tokens' ? value : value / COST_UNITS_PER_CURRENCY;
}

function budgetExceeded(ref: BudgetRef, used: number, now: Date): AppError {
  const resetAt = ref.period.end.toISOString();
  const limit = ref.budget[ref.metric]!;
  const { level } = ref.owner;
  return new AppError(
    'budget_exceeded',
    `${WHOSE[level]} ${ADJECTIVE[ref.budget.period]} ${ref.metric === 'tokens' ? 'token' : 'cost'} budget (${limit}) would be passed; it resets at ${resetAt}`,
    [
      {
        reason: `${REASON[level]} budget exhausted`,
        level,
        ...(level === 'team' ? { teamId: ref.owner.id } : {}),
        limit: ref.metric,
        budget: limit,
        period: ref.budget.period,
        used: inBudgetUnits(ref.metric, used),
        resetAt,
      },
    ],
    secondsUntilEnd(ref.period, now),
  );
}
