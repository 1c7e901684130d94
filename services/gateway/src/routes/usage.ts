import type { CallContext } from '@switchyard/shared';
import type {
  UsageBucket__Output,
  UsageReport__Output,
} from '@switchyard/shared/proto/notification/v1';
import { bucketsByPublicPath, publicPathOf } from '../metering/usage-routes';
import {
  UsageCalls,
  UsageCallsQuery,
  UsageQuery,
  UsageReport,
  type UsageCallsQueryParams,
  type UsageQueryParams,
} from '../schemas/usage';
import { json, type AnyRoute, type RouteDeps, type RouteSpec } from './types';
import { orNull } from './proto-values';

function bucketView<K extends string>(name: K, bucket: UsageBucket__Output) {
  return {
    [name]: bucket.key,
    tokensInput: bucket.tokens_input,
    tokensOutput: bucket.tokens_output,
    cost: bucket.cost,
    calls: bucket.calls,
  } as Record<K, string> & {
    tokensInput: number;
    tokensOutput: number;
    cost: number;
    calls: number;
  };
}

export function usageView(report: UsageReport__Output) {
  return {
    organization: report.organization,
    period: report.period,
    periodStart: report.period_start,
    periodEnd: report.period_end,
    quota: report.quota,
    used: report.used,
    remaining: report.remaining,
    hardQuota: report.hard_quota,
    cost: report.cost,
    calls: report.calls,
    thresholdShares: report.threshold_shares,
    byModel: report.by_model.map((b) => bucketView('model', b)),
    byEndpoint: bucketsByPublicPath(report.by_route).map((b) => bucketView('endpoint', b)),
    daily: report.daily.map((b) => bucketView('date', b)),
    refused: refusedView(report.refused),
    byKey: report.by_key.map((b) => bucketView('keyId', b)),
    byTeam: report.by_team.map((b) => bucketView('teamId', b)),
    byEndUser: report.by_end_user.map((b) => bucketView('endUser', b)),
  };
}

/** Refused calls: the period's total, per reason (most first), and per day and reason. */
function refusedView(refused: UsageReport__Output['refused']) {
  const byReason = new Map<string, number>();
  for (const r of refused) byReason.set(r.reason, (byReason.get(r.reason) ?? 0) + Number(r.calls));
  return {
    calls: [...byReason.values()].reduce((n, c) => n + c, 0),
    byReason: [...byReason]
      .map(([reason, calls]) => ({ reason, calls }))
      .sort((a, b) => b.calls - a.calls || a.reason.localeCompare(b.reason)),
    daily: refused.map((r) => ({ date: r.day, reason: r.reason, calls: Number(r.calls) })),
  };
}

const getUsage: RouteSpec<unknown, UsageQueryParams> = {
  method: 'GET',
  path: '/api/v2/usage',
  operationId: 'getUsage',
  summary:
    "The caller organization's token usage in a period: quota, used, remaining, by model, by endpoint and by day",
  tag: 'usage',
  auth: true,
  querySchema: UsageQuery,
  responses: { 200: { description: 'The usage report', schema: UsageReport } },
  async handle({ query, call }, deps) {
    return json(200, await usageOf(call, query, deps));
  },
};

async function usageOf(call: CallContext, query: UsageQueryParams, deps: RouteDeps) {
  const report = await deps.clients.notification.getUsage(
    { period: query.period ?? '', days: query.days ?? 30 },
    call,
  );
  const cache = await deps.responseCache.usage(call.organization, report.period);
  return { ...usageView(report), cache };
}

const getOrganizationUsage: RouteSpec<unknown, UsageQueryParams> = {
  method: 'GET',
  path: '/api/v2/admin/organizations/:organizationId/usage',
  operationId: 'adminGetUsage',
  summary: "An organization's usage report, as the organization's own GET /api/v2/usage shows it",
  tag: 'admin',
  auth: 'admin',
  querySchema: UsageQuery,
  responses: { 200: { description: 'The usage report', schema: UsageReport } },
  errors: ['not_found'],
  async handle({ params, query, call }, deps) {
    const { id } = await deps.accounts.getOrganization(params.organizationId);
    return json(200, await usageOf({ ...call, organization: id }, query, deps));
  },
};

const listCalls: RouteSpec<unknown, UsageCallsQueryParams> = {
  method: 'GET',
  path: '/api/v2/usage/calls',
  operationId: 'listUsageCalls',
  summary:
    "The organization's billed calls, newest first (time, endpoint, model, key, tokens, cost, outcome), a page at a time; refused calls are counted in GET /api/v2/usage, not listed",
  tag: 'usage',
  auth: true,
  querySchema: UsageCallsQuery,
  responses: { 200: { description: 'A page of calls', schema: UsageCalls } },
  async handle({ query, call }, deps) {
    const page = await deps.clients.notification.listUsageCalls(
      { limit: query.limit, before: query.before ?? '', key_id: query.keyId ?? '' },
      call,
    );
    return json(200, {
      calls: page.calls.map((c) => ({
        id: c.id,
        time: c.occurred_at,
        requestId: orNull(c.request_id),
        keyId: orNull(c.key_id),
        endpoint: publicPathOf(c.route),
        model: c.model,
        tokensInput: c.tokens_input,
        tokensOutput: c.tokens_output,
        cost: c.cost,
        outcome: orNull(c.outcome),
      })),
      next: orNull(page.next),
    });
  },
};

export const usageRoutes: AnyRoute[] = [getUsage, listCalls, getOrganizationUsage];
