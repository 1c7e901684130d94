import { createHash } from 'node:crypto';
import type { EventEnvelope } from '@switchyard/shared';
import type { NotificationConfig } from '../config';
import type { UsageStore } from '../store/usage-store';
import type { WebhookFanOut } from './fan-out';

/** The UTC month of an ISO time: "2026-11". */
export function periodOf(time: string): string {
  return new Date(time).toISOString().slice(0, 7);
}

/**
 * The id of the usage_threshold notification for (organization, period, share). Deterministic,
 * so a redelivered or replayed usage event can never create a second notification.
 */
export function thresholdEventId(organization: string, period: string, share: number): string {
  const digest = createHash('sha256').update(`${organization}\u0000${period}\u0000${share}`).digest('hex').slice(0, 24);
  return `evt_thr_${digest}`;
}

/**
 * usage.recorded: adds the tokens to the organization's month once per event id, then notifies
 * every share of the quota the total has reached and that was not notified yet.
 */
export async function handleUsageEvent(
  event: EventEnvelope<'usage.recorded'>,
  usage: UsageStore,
  fanOut: WebhookFanOut,
  config: NotificationConfig['usage'],
): Promise<void> {
  const period = periodOf(event.time);
  const tokens = event.data.tokensInput + event.data.tokensOutput;
  const { total } = await usage.add(event.organization, period, event.id, tokens);
  const notified = new Set(await usage.notifiedShares(event.organization, period));
  for (const share of config.thresholdShares) {
    const threshold = Math.round(share * config.monthlyTokenQuota);
    if (total < threshold || notified.has(share)) continue;
    const id = thresholdEventId(event.organization, period, share);
    // Deliveries first (idempotent by id), then the mark: a crash in between repeats nothing.
    await fanOut.send(event.organization, 'usage_threshold', id, event.time, {
      event: 'usage_threshold',
      organization: event.organization,
      usage: total,
      threshold,
      id,
      occurredAt: event.time,
    });
    await usage.markNotified(event.organization, period, share);
  }
}
