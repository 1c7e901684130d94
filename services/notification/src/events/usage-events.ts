import type { EventEnvelope } from '@switchyard/shared';
import { checkThresholds, type ThresholdDeps } from '../usage/thresholds';
import type { UsageLedger } from '../usage/usage-ledger';

export { periodOf } from '../usage/usage-entry';
export { thresholdEventId } from '../usage/thresholds';

/**
 * usage.recorded, a batch at a time: counts each event once in the ledger and its projection,
 * then notifies the shares of the quota each organization's month has reached. Both steps run
 * again on a repeat (they are idempotent), so a crash between them loses nothing.
 */
export async function handleUsageEvents(
  events: Array<EventEnvelope<'usage.recorded'> | EventEnvelope<'usage.refused'>>,
  ledger: UsageLedger,
  thresholds: ThresholdDeps,
): Promise<void> {
  if (events.length === 0) return;
  for (const counted of await ledger.recordBatch(events)) {
    // Refusals add no tokens: a month where only they were counted crossed no share.
    if (counted.entries.length > 0 && counted.entries.every((e) => e.refused)) continue;
    await checkThresholds(thresholds, counted);
  }
}
