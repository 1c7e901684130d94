import { AppError, type SharedState } from '@switchyard/shared';
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

/** A call's reservations on the budgets it counts against. */
export interface BudgetHold {
  settle(spent: Spend): Promise<void>;
  release(): Promise<void>;
}

const NO_BUDGET: BudgetHold = { settle: async () => undefined, release: async () => undefined };

/** The budgets a call counts against: its key's, its key's team's, its end user's. */
export interface BudgetScope {
  key?: ApiKeyRecord;
  team?: { teamId: string; organization: string; budget?: Budget };
  endUser?: string;
}

/** A call's estimate: tokens, and its cost (asked for only when a cost budget applies). */
export interface BudgetEstimate {
  tokens: number;
  cost(): Promise<number>;
}

export interface BudgetGuardDeps {
  state: Pick<SharedState, 'counters'>;
  now?: () => Date;
  /** A budget refused a call; used: its counter then (threshold notices). */
  onExceeded?: (ref: BudgetRef, used: number) => void;
  /** A counter moved from `before` to `after` (threshold notices). */
  onCounted?: (ref: BudgetRef, before: number, after: number) => void;
}

/**
 * Token and cost budgets of a key, of its team and of each of its end users, on shared-state
 * counters named by period. A call reserves its estimate on each atomically, only within the
 * budget, so concurrent calls cannot pass it together; it settles to its real usage afterwards,
 * as the quota does.
 */
export class BudgetGuard {
  private readonly now: () => Date;

  constructor(private readonly deps: BudgetGuardDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  async reserve(scope: BudgetScope, estimate: BudgetEstimate): Promise<BudgetHold> {
    const now = this.now();
    const refs = budgetsOf(scope, now);
    if (refs.length === 0) return NO_BUDGET;
    const needsCost = refs.some((ref) => ref.metric === 'cost');
    const estimateCost = needsCost ? await estimate.cost() : 0;
    const reserved = (ref: BudgetRef) =>
      ref.metric === 'tokens' ? estimate.tokens : costUnits(estimateCost);
    const { counters } = this.deps.state;
    const releaseAll = (refs: BudgetRef[]) =>
      Promise.all(refs.map((r) => reserved(r) > 0 && counters.release(r.key, reserved(r))));
    const granted: BudgetRef[] = [];
    for (const ref of refs) {
      const amount = reserved(ref);
      // Nothing to reserve (a free model's cost): counters take positive amounts only.
      if (amount === 0) {
        granted.push(ref);
        continue;
      }
      const reservation = await counters.reserve(ref.key, amount, ref.limit, ttlOf(ref, now));
      if (!reservation.granted) {
        await releaseAll(granted);
        this.deps.onExceeded?.(ref, reservation.total);
        throw budgetExceeded(ref, reservation.total, now);
      }
      this.deps.onCounted?.(ref, reservation.total - amount, reservation.total);
      granted.push(ref);
    }
    let done = false;
    const once = async (work: () => Promise<unknown>) => {
      if (done) return;
      done = true;
      await work();
    };
    return {
      settle: (spent) =>
        once(async () => {
          // A service that did not report the cost: the estimate's price per token.
          const cost =
            spent.cost ??
            (estimate.tokens > 0 ? (estimateCost * spent.tokens) / estimate.tokens : 0);
          for (const ref of granted) {
            const real = ref.metric === 'tokens' ? Math.round(spent.tokens) : costUnits(cost);
            const delta = real - reserved(ref);
            // Settled past the limit: the call already ran; the next one is refused.
            if (delta > 0) {
              const { total } = await counters.reserve(
                ref.key,
                delta,
                Number.MAX_SAFE_INTEGER,
                ttlOf(ref, now),
              );
              this.deps.onCounted?.(ref, total - delta, total);
            }
            if (delta < 0) await counters.release(ref.key, -delta);
          }
        }),
      release: () => once(() => releaseAll(granted)),
    };
  }
}

/** Cost in counter units, rounded up: a budget is never charged less than was spent. */
function costUnits(cost: number): number {
  return Math.max(0, Math.ceil(cost * COST_UNITS_PER_CURRENCY - 1e-6));
}

function ttlOf(ref: BudgetRef, now: Date): number {
  return secondsUntilEnd(ref.period, now) + COUNTER_GRACE_SECONDS;
}

/** The counter of one owner's budget metric in a period. */
export function budgetCounterKey(owner: BudgetOwner, metric: BudgetMetric, period: string) {
  const prefix = metric === 'tokens' ? 'budget' : 'budget-cost';
  if (owner.level === 'team') return `${prefix}:team:${owner.id}:${period}`;
  if (owner.level === 'endUser')
    return `${prefix}:${owner.id}:user:${encodeURIComponent(owner.endUser!)}:${period}`;
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
