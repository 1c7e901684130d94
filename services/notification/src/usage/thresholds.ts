import { createHash } from 'node:crypto';
import { createEvent, type EventEnvelope, type EventPublisher } from '@switchyard/shared';
import type { NotificationConfig } from '../config';
import type { WebhookFanOut } from '../events/fan-out';
import type { NotificationStores } from '../store';
import type { ThresholdRecord } from '../store/thresholds/port';
import { effectivePolicy, thresholdOf } from './policy';
import type { CountedPeriod } from './usage-ledger';
import { usageThresholdsReached } from './threshold-metrics';

/**
 * The id of the usage_threshold notification for (organization, period, share). Deterministic,
 * so a redelivered or replayed usage event can never create a second notification, and the
 * usage.threshold_reached event on the bus carries the same id wherever it is produced.
 */
export function thresholdEventId(organization: string, period: string, share: number): string {
  const digest = createHash('sha256')
    .update(`${organization}\u0000${period}\u0000${share}`)
    .digest('hex')
    .slice(0, 24);
  return `evt_thr_${digest}`;
}

export interface ThresholdDeps {
  stores: Pick<NotificationStores, 'usageLedger' | 'thresholds' | 'policies'>;
  fanOut: WebhookFanOut;
  bus: EventPublisher;
  defaults: NotificationConfig['usage'];
}

/**
 * Notifies every share of the organization's quota that the period's usage has reached and that
 * was not notified yet. The first crossing is claimed by a unique insert (one per organization,
 * period and share, whatever replicas or replays do); webhook deliveries (idempotent by id) and
 * the bus event (same id) come next and the mark last, so a crash in between repeats, never loses.
 * The usage and time of a crossing are those of the event that crossed it, however events were
 * batched: the batch's entries are walked from the total before them.
 */
export async function checkThresholds(deps: ThresholdDeps, counted: CountedPeriod): Promise<void> {
  const { organization, period } = counted;
  const totals = await deps.stores.usageLedger.totals(organization, period);
  const used = totals.tokensInput + totals.tokensOutput;
  const policy = await effectivePolicy(deps.stores.policies, deps.defaults, organization);
  const known = new Map(
    (await deps.stores.thresholds.list(organization, period)).map((r) => [r.share, r]),
  );
  for (const share of policy.thresholdShares) {
    const record = known.get(share);
    if (record?.notified) continue;
    if (record) {
      await fire(deps, record); // claimed by a run that stopped before notifying
      continue;
    }
    const threshold = thresholdOf(share, policy.monthlyTokenQuota);
    if (used < threshold) continue;
    const crossing = crossingOf(counted, used, threshold);
    await fire(deps, {
      organization,
      period,
      share,
      usage: crossing.usage,
      threshold,
      quota: policy.monthlyTokenQuota,
      occurredAt: crossing.occurredAt,
      notified: false,
    });
  }
}

/**
 * A hard quota refused a call (usage.quota_exhausted from the gateway): the customer is blocked,
 * so every share up to 100% not notified yet is, now, with the ledger's usage (which may be just
 * under the quota: the gateway refuses on reservations, the ledger counts what calls used). The
 * same claim as for usage, so whichever comes first notifies, once.
 */
export async function checkExhaustion(
  deps: ThresholdDeps,
  event: EventEnvelope<'usage.quota_exhausted'>,
): Promise<void> {
  const { organization } = event;
  const { period } = event.data;
  const policy = await effectivePolicy(deps.stores.policies, deps.defaults, organization);
  if (!policy.hardQuota) return;
  const totals = await deps.stores.usageLedger.totals(organization, period);
  const used = totals.tokensInput + totals.tokensOutput;
  const known = new Map(
    (await deps.stores.thresholds.list(organization, period)).map((r) => [r.share, r]),
  );
  for (const share of policy.thresholdShares.filter((s) => s <= 1)) {
    const record = known.get(share);
    if (record?.notified) continue;
    await fire(
      deps,
      record ?? {
        organization,
        period,
        share,
        usage: used,
        threshold: thresholdOf(share, policy.monthlyTokenQuota),
        quota: policy.monthlyTokenQuota,
        occurredAt: event.time,
        notified: false,
      },
    );
  }
}

/** Claims the crossing (the first claim of (organization, period, share) wins), notifies, marks it. */
async function fire(deps: ThresholdDeps, crossing: ThresholdRecord): Promise<void> {
  const record = await deps.stores.thresholds.claim(crossing);
  if (record.notified) return;
  await notify(deps, record);
  await deps.stores.thresholds.markNotified(record.organization, record.period, record.share);
  usageThresholdsReached.inc({ share: String(record.share) });
}

/** The period's usage right after the counted entry that reached the threshold, and that entry's time. */
function crossingOf(
  counted: CountedPeriod,
  used: number,
  threshold: number,
): { usage: number; occurredAt: string } {
  let running = used - counted.entries.reduce((sum, e) => sum + e.tokensInput + e.tokensOutput, 0);
  for (const entry of counted.entries) {
    running += entry.tokensInput + entry.tokensOutput;
    if (running >= threshold) return { usage: running, occurredAt: entry.occurredAt };
  }
  return { usage: used, occurredAt: counted.occurredAt };
}

async function notify(deps: ThresholdDeps, record: ThresholdRecord): Promise<void> {
  const id = thresholdEventId(record.organization, record.period, record.share);
  await deps.fanOut.send(record.organization, 'usage_threshold', id, record.occurredAt, {
    event: 'usage_threshold',
    organization: record.organization,
    usage: record.usage,
    threshold: record.threshold,
    id,
    occurredAt: record.occurredAt,
  });
  await deps.bus.publish(
    createEvent('usage.threshold_reached', {
      id,
      source: 'notification',
      organization: record.organization,
      time: record.occurredAt,
      data: {
        period: record.period,
        usage: record.usage,
        threshold: record.threshold,
        share: record.share,
        quota: record.quota,
      },
    }),
  );
}
