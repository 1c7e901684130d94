import type { EventEnvelope, RefusalReason, UsageRecorded } from '@switchyard/shared';

/** Cost is kept in integer nano-units so sums are exact and independent of the order of events. */
export const COST_UNITS_PER_CURRENCY_UNIT = 1e9;

/** One usage.recorded event as the ledger keeps it. */
export interface UsageEntry {
  eventId: string;
  organization: string;
  /** UTC month of the event: "2026-11". */
  period: string;
  /** UTC day of the event: "2026-11-21". */
  day: string;
  model: string;
  /**
   * The route key (routeKeyOf). Stored under this name, and summed into buckets of kind
   * 'endpoint', since before routes: entries and buckets written then keep their paths as keys.
   */
  endpoint: string;
  tokensInput: number;
  tokensOutput: number;
  costNanos: number;
  occurredAt: string;
  /** The call's request and key, and whether it succeeded (absent on entries written before them). */
  requestId?: string;
  keyId?: string;
  outcome?: UsageRecorded['outcome'];
  /** The key's team and the end user the call named, when known: usage is reported by them too. */
  teamId?: string;
  endUser?: string;
  /**
   * usage.refused: calls the gateway refused (429) before they ran, counted in the day's bucket
   * for the reason and nowhere else (no tokens, no cost, not among the month's calls).
   */
  refused?: { reason: RefusalReason; count: number };
}

/** Sums of a set of usage entries. */
export interface UsageTotals {
  tokensInput: number;
  tokensOutput: number;
  costNanos: number;
  calls: number;
}

/** Totals of one bucket: a model id, a route key or a day (YYYY-MM-DD). */
export interface KeyedTotals extends UsageTotals {
  key: string;
}

export const ZERO_TOTALS: UsageTotals = { tokensInput: 0, tokensOutput: 0, costNanos: 0, calls: 0 };

/** The UTC month of an ISO time: "2026-11". */
export function periodOf(time: string): string {
  return new Date(time).toISOString().slice(0, 7);
}

export function dayOf(time: string): string {
  return new Date(time).toISOString().slice(0, 10);
}

/**
 * What the ledger sums usage by: the route ("content.generate"), "<route>:<agent>" for
 * assistant.chat, or the path of an event recorded before routes. The gateway shows each as the
 * path users call.
 */
export function routeKeyOf(usage: UsageRecorded): string {
  if (!usage.route) return usage.endpoint ?? '';
  return usage.agent ? `${usage.route}:${usage.agent}` : usage.route;
}

export function usageEntryOf(event: EventEnvelope<'usage.recorded'>): UsageEntry {
  return {
    eventId: event.id,
    organization: event.organization,
    period: periodOf(event.time),
    day: dayOf(event.time),
    model: event.data.model,
    endpoint: routeKeyOf(event.data),
    tokensInput: event.data.tokensInput,
    tokensOutput: event.data.tokensOutput,
    costNanos: Math.round(event.data.cost * COST_UNITS_PER_CURRENCY_UNIT),
    occurredAt: new Date(event.time).toISOString(),
    requestId: event.data.requestId,
    keyId: event.data.keyId,
    outcome: event.data.outcome,
    ...(event.data.teamId ? { teamId: event.data.teamId } : {}),
    ...(event.data.endUser ? { endUser: event.data.endUser } : {}),
  };
}

/**
 * One usage.refused event as the ledger keeps it: an entry of its own (unique by event id, so a
 * redelivered count is counted once) that adds to the refused bucket of its day and reason.
 */
export function refusalEntryOf(event: EventEnvelope<'usage.refused'>): UsageEntry {
  const { day, reason, count } = event.data;
  return {
    eventId: event.id,
    organization: event.organization,
    period: day.slice(0, 7),
    day,
    model: '',
    endpoint: '',
    tokensInput: 0,
    tokensOutput: 0,
    costNanos: 0,
    occurredAt: new Date(event.time).toISOString(),
    refused: { reason, count },
  };
}

/** The key of a refused bucket: "2026-11-21/quota". */
export function refusalKey(day: string, reason: string): string {
  return `${day}/${reason}`;
}

/**
 * The projection buckets one entry adds to: the month total, its model, its route, its day, and
 * its key, team and end user (`user`) when it has them; a refusal, its day and reason (`refused`).
 */
export type BucketKind =
  'total' | 'model' | 'endpoint' | 'day' | 'refused' | 'key' | 'team' | 'user' | BudgetDayKind;

/**
 * A budget's spend on one day (keyed by budgetDayKey): what a gateway rebuilds a budget counter
 * from, read by _id, never listed.
 */
export type BudgetDayKind = 'key-day' | 'team-day' | 'user-day';

/** The kinds a usage report lists by key, all of a month's buckets of the kind. */
export type ReportedKind = Exclude<BucketKind, 'total' | 'day' | BudgetDayKind>;

/** The key of a budget's day bucket: the day, the key or team id, and (user-day) the end user. */
export function budgetDayKey(day: string, id: string, endUser?: string): string {
  return endUser === undefined ? `${day}/${id}` : `${day}/${id}/${endUser}`;
}

export interface BucketRef {
  kind: BucketKind;
  /** The month; for day buckets the month of the day. */
  period: string;
  key: string;
}

export function bucketsOf(entry: UsageEntry): BucketRef[] {
  // A refusal adds nothing to the total; the total's (zero) delta lists the refused key in it.
  if (entry.refused)
    return [
      { kind: 'total', period: entry.period, key: '' },
      { kind: 'refused', period: entry.period, key: refusalKey(entry.day, entry.refused.reason) },
    ];
  return [
    { kind: 'total', period: entry.period, key: '' },
    { kind: 'model', period: entry.period, key: entry.model },
    { kind: 'endpoint', period: entry.period, key: entry.endpoint },
    { kind: 'day', period: entry.period, key: entry.day },
    ...(entry.keyId ? [{ kind: 'key' as const, period: entry.period, key: entry.keyId }] : []),
    ...(entry.teamId ? [{ kind: 'team' as const, period: entry.period, key: entry.teamId }] : []),
    ...(entry.endUser ? [{ kind: 'user' as const, period: entry.period, key: entry.endUser }] : []),
    ...budgetDaysOf(entry),
  ];
}

/** The day buckets of the budgets an entry counts against: its key's, its team's, its end user's. */
function budgetDaysOf({ period, day, keyId, teamId, endUser }: UsageEntry): BucketRef[] {
  if (!keyId) return [];
  return [
    { kind: 'key-day', period, key: budgetDayKey(day, keyId) },
    ...(teamId ? [{ kind: 'team-day' as const, period, key: budgetDayKey(day, teamId) }] : []),
    ...(endUser
      ? [{ kind: 'user-day' as const, period, key: budgetDayKey(day, keyId, endUser) }]
      : []),
  ];
}

/** An unambiguous id for (organization, bucket), whatever characters the parts contain. */
export function bucketId(organization: string, bucket: BucketRef): string {
  return JSON.stringify([organization, bucket.kind, bucket.period, bucket.key]);
}

/** What a set of entries adds to one bucket. */
export interface BucketDelta extends UsageTotals {
  organization: string;
  bucket: BucketRef;
  /** The latest event time among the entries summed. */
  occurredAt: string;
}

/** The entries summed per bucket: one write per bucket and batch instead of one per event. */
export function deltasOf(entries: UsageEntry[]): BucketDelta[] {
  const deltas = new Map<string, BucketDelta>();
  for (const entry of entries) {
    for (const bucket of bucketsOf(entry)) {
      const id = bucketId(entry.organization, bucket);
      let delta = deltas.get(id);
      if (!delta) {
        delta = {
          organization: entry.organization,
          bucket,
          ...ZERO_TOTALS,
          occurredAt: entry.occurredAt,
        };
        deltas.set(id, delta);
      }
      delta.tokensInput += entry.tokensInput;
      delta.tokensOutput += entry.tokensOutput;
      delta.costNanos += entry.costNanos;
      delta.calls += entry.refused ? (bucket.kind === 'refused' ? entry.refused.count : 0) : 1;
      if (entry.occurredAt > delta.occurredAt) delta.occurredAt = entry.occurredAt;
    }
  }
  return [...deltas.values()];
}
