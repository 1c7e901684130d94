import { createHash } from 'node:crypto';
import { createEvent, type EventPublisher, type Logger } from '@switchyard/shared';

/** The id of an organization's one quota_exhausted event of a period: replicas and repeats share it. */
export function quotaExhaustedEventId(organization: string, period: string): string {
  const digest = createHash('sha256')
    .update(`${organization}\u0000${period}`)
    .digest('hex')
    .slice(0, 24);
  return `evt_qex_${digest}`;
}

/** Periods remembered per replica; an older one is forgotten first (a repeat costs one duplicate event). */
const MAX_REMEMBERED = 10_000;

/**
 * Tells notification, once per organization and period from this replica, that a hard quota
 * refused a call: the 100% usage_threshold then fires even though the ledger, which counts what
 * calls really used, stays just under the quota (the refusal counts reservations). Notification
 * claims the threshold once whatever replicas and repeats send; a failed publish is tried again
 * at the next refusal.
 */
export class QuotaExhaustedNotices {
  private readonly sent = new Set<string>();

  constructor(
    private readonly bus: EventPublisher,
    private readonly logger: Logger,
  ) {}

  refused(organization: string, period: string, quota: number, used: number): void {
    const key = `${organization}\u0000${period}`;
    if (this.sent.has(key)) return;
    if (this.sent.size >= MAX_REMEMBERED) this.sent.delete(this.sent.values().next().value!);
    this.sent.add(key);
    const event = createEvent('usage.quota_exhausted', {
      id: quotaExhaustedEventId(organization, period),
      source: 'gateway',
      organization,
      data: { period, quota, used: Math.max(0, Math.round(used)) },
    });
    this.bus.publish(event).catch((error: unknown) => {
      this.sent.delete(key);
      this.logger.warn(
        { organization, period, error: error instanceof Error ? error.message : String(error) },
        'usage.quota_exhausted not published; the next refused call tries again',
      );
    });
  }
}
