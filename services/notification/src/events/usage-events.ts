import type { EventEnvelope } from '@switchyard/shared';
import { checkThresholds, type ThresholdDeps } from '../usage/thresholds';
import type { UsageLedger } from '../usage/usage-ledger';

export { periodOf } from '../usage/usage-entry';
export { thresholdEventId } from '../usage/thresholds';

/**
 * usage.recorded: counts the event once in the ledger and its projection, then notifies the
 * shares of the quota the period's usage has reached. Both steps run again on a repeat (they are
 * idempotent), so a crash between them loses nothing.
 */
export async function handleUsageEvent(event: EventEnvelope<'usage.recorded'>, ledger: UsageLedger, thresholds: ThresholdDeps): Promise<void> {
  const entry = await ledger.record(event);
  await checkThresholds(thresholds, entry.organization, entry.period, entry.occurredAt);
}
