import { AppError, type CallContext } from '@switchyard/shared';
import type {
  GetUsageRequest__Output,
  RefusedCalls,
  UsageBucket,
  UsageReport,
} from '@switchyard/shared/proto/notification/v1';
import { effectivePolicy } from '../usage/policy';
import { COST_UNITS_PER_CURRENCY_UNIT, ZERO_TOTALS, type KeyedTotals } from '../usage/usage-entry';
import { organizationOf } from './common';
import type { HandlerDeps } from './deps';

export const DEFAULT_USAGE_DAYS = 30;
export const MAX_USAGE_DAYS = 90;
/** End users a report lists: those with the most tokens (an organization may have any number). */
export const MAX_END_USERS = 100;
const DAY_MS = 86_400_000;

function validPeriod(value: string, now: Date): string {
  if (!value) return now.toISOString().slice(0, 7);
  if (!/^\d{4}-(0[1-9]|1[0-2])$/.test(value))
    throw AppError.invalid('period must be YYYY-MM', '/period', 'must be YYYY-MM');
  return value;
}

function validDays(value: number): number {
  if (!value) return DEFAULT_USAGE_DAYS;
  if (!Number.isInteger(value) || value < 1 || value > MAX_USAGE_DAYS) {
    throw AppError.invalid(`days must be between 1 and ${MAX_USAGE_DAYS}`, '/days', 'out of range');
  }
  return value;
}

/** [start, end) of a UTC month as ISO times. */
function periodBounds(period: string): { start: string; end: string } {
  const [year, month] = period.split('-').map(Number) as [number, number];
  return {
    start: new Date(Date.UTC(year, month - 1, 1)).toISOString(),
    end: new Date(Date.UTC(year, month, 1)).toISOString(),
  };
}

function toBucket(totals: KeyedTotals): UsageBucket {
  return {
    key: totals.key,
    tokens_input: totals.tokensInput,
    tokens_output: totals.tokensOutput,
    cost: totals.costNanos / COST_UNITS_PER_CURRENCY_UNIT,
    calls: totals.calls,
  };
}

/** Most tokens first; ties by key, so the order is stable. */
function byTokens(buckets: KeyedTotals[]): UsageBucket[] {
  const tokens = (b: KeyedTotals) => b.tokensInput + b.tokensOutput;
  return [...buckets]
    .sort((a, b) => tokens(b) - tokens(a) || a.key.localeCompare(b.key))
    .map(toBucket);
}

/** The last `days` UTC days ending today, oldest first, with zero buckets for days without usage. */
function dailySeries(found: KeyedTotals[], days: number, now: Date): UsageBucket[] {
  const byDay = new Map(found.map((b) => [b.key, b]));
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return Array.from({ length: days }, (_, index) => {
    const day = new Date(today - (days - 1 - index) * DAY_MS).toISOString().slice(0, 10);
    return toBucket(byDay.get(day) ?? { key: day, ...ZERO_TOTALS });
  });
}

/** Refused buckets (keyed "day/reason") by day, then reason. */
function refusedCalls(buckets: KeyedTotals[]): RefusedCalls[] {
  return buckets
    .map((b) => {
      const separator = b.key.indexOf('/');
      return { day: b.key.slice(0, separator), reason: b.key.slice(separator + 1), calls: b.calls };
    })
    .sort((a, b) => a.day.localeCompare(b.day) || a.reason.localeCompare(b.reason));
}

/** The calling organization's usage in a period, against its quota policy. */
export async function getUsage(
  deps: HandlerDeps,
  request: GetUsageRequest__Output,
  context: CallContext,
): Promise<UsageReport> {
  const now = deps.clock?.() ?? new Date();
  const organization = organizationOf(context);
  const period = validPeriod(request.period, now);
  const days = validDays(request.days);
  const ledger = deps.stores.usageLedger;
  const today = now.toISOString().slice(0, 10);
  const firstDay = new Date(now.getTime() - (days - 1) * DAY_MS).toISOString().slice(0, 10);
  const [totals, models, routes, refused, keys, teams, users, daily, policy] = await Promise.all([
    ledger.totals(organization, period),
    ledger.buckets(organization, period, 'model'),
    ledger.buckets(organization, period, 'endpoint'),
    ledger.buckets(organization, period, 'refused'),
    ledger.buckets(organization, period, 'key'),
    ledger.buckets(organization, period, 'team'),
    ledger.buckets(organization, period, 'user'),
    ledger.daily(organization, firstDay, today),
    effectivePolicy(deps.stores.policies, deps.config.usage, organization),
  ]);
  const used = totals.tokensInput + totals.tokensOutput;
  const bounds = periodBounds(period);
  return {
    organization,
    period,
    period_start: bounds.start,
    period_end: bounds.end,
    quota: policy.monthlyTokenQuota,
    used,
    remaining: Math.max(0, policy.monthlyTokenQuota - used),
    hard_quota: policy.hardQuota,
    cost: totals.costNanos / COST_UNITS_PER_CURRENCY_UNIT,
    calls: totals.calls,
    by_model: byTokens(models),
    by_route: byTokens(routes),
    daily: dailySeries(daily, days, now),
    threshold_shares: policy.thresholdShares,
    refused: refusedCalls(refused),
    by_key: byTokens(keys),
    by_team: byTokens(teams),
    by_end_user: byTokens(users).slice(0, MAX_END_USERS),
  };
}
