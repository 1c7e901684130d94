import { AppError, type SharedState } from '@switchyard/shared';
import type { ApiKeyRecord, Budget } from '../store';
import { secondsUntilEnd, type Period } from './period';

/** Counters outlive their period a little, so late settlements still find them. */
const COUNTER_GRACE_SECONDS = 24 * 3600;

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

/** One budget a call counts against. */
interface BudgetRef {
  /** "key" or "end user", for the error. */
  level: 'key' | 'endUser';
  budget: Budget;
  /** The counter's key, its period in the name. */
  key: string;
  period: Period;
}

/** A call's reservations on the budgets it counts against. */
export interface BudgetHold {
  settle(realTokens: number): Promise<void>;
  release(): Promise<void>;
}

const NO_BUDGET: BudgetHold = { settle: async () => undefined, release: async () => undefined };

export interface BudgetGuardDeps {
  state: Pick<SharedState, 'counters'>;
  now?: () => Date;
  /** A budget refused a call (counted with the other 429s). */
  onExceeded?: (organization: string, level: BudgetRef['level']) => void;
}

/**
 * Token budgets of a key and of each of its end users, on shared-state counters named by
 * period (budget:<keyId>:<period> and budget:<keyId>:user:<user>:<period>). A call reserves
 * its estimate on each atomically, only within the budget, so concurrent calls cannot pass it
 * together; it settles to its real usage afterwards, as the quota does.
 */
export class BudgetGuard {
  private readonly now: () => Date;

  constructor(private readonly deps: BudgetGuardDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  async reserve(
    key: ApiKeyRecord | undefined,
    endUser: string | undefined,
    estimate: number,
  ): Promise<BudgetHold> {
    const now = this.now();
    const refs = budgetsOf(key, endUser, now);
    if (refs.length === 0) return NO_BUDGET;
    const { counters } = this.deps.state;
    const granted: BudgetRef[] = [];
    for (const ref of refs) {
      const reservation = await counters.reserve(
        ref.key,
        estimate,
        ref.budget.tokens,
        ttlOf(ref, now),
      );
      if (!reservation.granted) {
        await Promise.all(granted.map((g) => counters.release(g.key, estimate)));
        this.deps.onExceeded?.(key!.organization, ref.level);
        throw budgetExceeded(ref, reservation.total, now);
      }
      granted.push(ref);
    }
    let done = false;
    const once = async (work: () => Promise<unknown>) => {
      if (done) return;
      done = true;
      await work();
    };
    return {
      settle: (real) =>
        once(async () => {
          const delta = Math.round(real) - estimate;
          for (const ref of granted) {
            // Settled past the limit: the call already ran; the next one is refused.
            if (delta > 0)
              await counters.reserve(ref.key, delta, Number.MAX_SAFE_INTEGER, ttlOf(ref, now));
            if (delta < 0) await counters.release(ref.key, -delta);
          }
        }),
      release: () =>
        once(() => Promise.all(granted.map((ref) => counters.release(ref.key, estimate)))),
    };
  }
}

function ttlOf(ref: BudgetRef, now: Date): number {
  return secondsUntilEnd(ref.period, now) + COUNTER_GRACE_SECONDS;
}

function budgetsOf(key: ApiKeyRecord | undefined, endUser: string | undefined, now: Date) {
  const refs: BudgetRef[] = [];
  if (!key) return refs;
  if (key.budget) {
    const period = budgetPeriodOf(key.budget.period, now);
    refs.push({
      level: 'key',
      budget: key.budget,
      period,
      key: `budget:${key.keyId}:${period.name}`,
    });
  }
  if (key.endUserBudget && endUser !== undefined) {
    const period = budgetPeriodOf(key.endUserBudget.period, now);
    refs.push({
      level: 'endUser',
      budget: key.endUserBudget,
      period,
      key: `budget:${key.keyId}:user:${encodeURIComponent(endUser)}:${period.name}`,
    });
  }
  return refs;
}

const ADJECTIVE = { day: 'daily', week: 'weekly', month: 'monthly' } as const;

function budgetExceeded(ref: BudgetRef, used: number, now: Date): AppError {
  const whose = ref.level === 'key' ? "this API key's" : "this end user's";
  const resetAt = ref.period.end.toISOString();
  return new AppError(
    'budget_exceeded',
    `${whose} ${ADJECTIVE[ref.budget.period]} token budget (${ref.budget.tokens}) would be passed; it resets at ${resetAt}`,
    [
      {
        reason: `${ref.level === 'key' ? 'key' : 'end-user'} budget exhausted`,
        budget: ref.budget.tokens,
        period: ref.budget.period,
        used,
        resetAt,
      },
    ],
    secondsUntilEnd(ref.period, now),
  );
}
