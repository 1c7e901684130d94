import { AppError, type CallContext } from '@switchyard/shared';
import type {
  BudgetSpend,
  GetBudgetSpendRequest__Output,
} from '@switchyard/shared/proto/notification/v1';
import { budgetDayKey, type BucketRef, type BudgetDayKind } from '../usage/usage-entry';
import { organizationOf } from './common';
import type { HandlerDeps } from './deps';

/** A month: the longest budget period. */
const MAX_DAYS = 31;
const DAY_MS = 86_400_000;
const KINDS: Record<string, BudgetDayKind> = {
  key: 'key-day',
  team: 'team-day',
  endUser: 'user-day',
};

function dayOf(value: string, field: string): number {
  const time = /^\d{4}-\d{2}-\d{2}$/.test(value) ? Date.parse(`${value}T00:00:00Z`) : NaN;
  if (Number.isNaN(time))
    throw AppError.invalid(`${field} must be YYYY-MM-DD`, `/${field}`, 'must be YYYY-MM-DD');
  return time;
}

/** What the ledger counted for one budget over days: its day buckets, read by _id. */
export async function getBudgetSpend(
  deps: HandlerDeps,
  request: GetBudgetSpendRequest__Output,
  context: CallContext,
): Promise<BudgetSpend> {
  const organization = organizationOf(context);
  const kind = KINDS[request.level];
  if (!kind)
    throw AppError.invalid('level must be key, team or endUser', '/level', 'unknown level');
  if (!request.id) throw AppError.invalid('id is required', '/id', 'required');
  if (kind === 'user-day' && !request.end_user)
    throw AppError.invalid('end_user is required for an end-user budget', '/end_user', 'required');
  const from = dayOf(request.from_day, 'from_day');
  const to = dayOf(request.to_day, 'to_day');
  const days = (to - from) / DAY_MS + 1;
  if (days < 1 || days > MAX_DAYS)
    throw AppError.invalid(
      `from_day to to_day must span 1 to ${MAX_DAYS} days`,
      '/to_day',
      'out of range',
    );
  const buckets: BucketRef[] = Array.from({ length: days }, (_, i) => {
    const day = new Date(from + i * DAY_MS).toISOString().slice(0, 10);
    const endUser = kind === 'user-day' ? request.end_user : undefined;
    return { kind, period: day.slice(0, 7), key: budgetDayKey(day, request.id, endUser) };
  });
  const sum = await deps.stores.usageLedger.sum(organization, buckets);
  return { tokens: sum.tokensInput + sum.tokensOutput, cost_nanos: sum.costNanos };
}
