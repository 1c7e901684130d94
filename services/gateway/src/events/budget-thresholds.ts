import { createHash } from 'node:crypto';
import { createEvent, type Counters, type EventPublisher, type Logger } from '@switchyard/shared';
import { inBudgetUnits, type BudgetRef } from '../metering/budgets';
import { secondsUntilEnd } from '../metering/period';

/** Shares of a budget's limit that send budget_threshold. */
export const BUDGET_THRESHOLD_SHARES = [0.8, 1] as const;
/** Claims outlive their period a little, as the counters do. */
const CLAIM_GRACE_SECONDS = 24 * 3600;

/** The event's id: the same for every replica that sees the crossing (deliveries are by event id). */
export function budgetThresholdEventId(counterKey: string, share: number): string {
  const digest = createHash('sha256').update(`${counterKey}\u0000${share}`).digest('hex');
  return `evt_bth_${digest.slice(0, 32)}`;
}

/**
 * budget.threshold_reached when a budget's counter reaches a share of its limit (reservations
 * included, so before the calls that pass it end), or when the budget refuses a call (100 %).
 * Each (counter, share) is claimed once in the shared counters, so of all replicas one sends it,
 * once per period; a claim whose event could not be published is given back for the next call.
 */
export class BudgetThresholdNotices {
  constructor(
    private readonly deps: {
      bus: EventPublisher;
      counters: Counters;
      logger: Logger;
      now: () => Date;
    },
  ) {}

  /** A counter moved from before to after (counter units). */
  counted(ref: BudgetRef, before: number, after: number): void {
    for (const share of BUDGET_THRESHOLD_SHARES) {
      const threshold = share * ref.limit;
      if (before < threshold && after >= threshold) void this.fire(ref, share, after);
    }
  }

  /** The budget refused a call: it is used up as far as callers can tell. */
  exceeded(ref: BudgetRef, used: number): void {
    void this.fire(ref, 1, used);
  }

  private async fire(ref: BudgetRef, share: number, used: number): Promise<void> {
    const { counters, bus, logger } = this.deps;
    const claim = `budget-threshold:${ref.key}:${share}`;
    const ttl = secondsUntilEnd(ref.period, this.deps.now()) + CLAIM_GRACE_SECONDS;
    try {
      if (!(await counters.reserve(claim, 1, 1, ttl)).granted) return;
    } catch (error) {
      logger.warn({ err: error, share }, 'budget threshold not claimed; a later call tries again');
      return;
    }
    const { owner, budget, metric } = ref;
    const limit = budget[metric]!;
    const event = createEvent('budget.threshold_reached', {
      id: budgetThresholdEventId(ref.key, share),
      source: 'gateway',
      organization: owner.organization,
      data: {
        level: owner.level,
        ...(owner.level === 'team' ? { teamId: owner.id } : { keyId: owner.id }),
        ...(owner.endUser !== undefined ? { endUser: owner.endUser } : {}),
        limit: metric,
        budget: limit,
        period: budget.period,
        share,
        threshold: share * limit,
        used: inBudgetUnits(metric, used),
        resetAt: ref.period.end.toISOString(),
      },
    });
    try {
      await bus.publish(event);
    } catch (error) {
      await counters.release(claim, 1).catch(() => undefined);
      logger.warn(
        { err: error, organization: owner.organization, share },
        'budget.threshold_reached not published; the next call that counts tries again',
      );
    }
  }
}
