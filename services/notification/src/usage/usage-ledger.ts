import type { EventEnvelope } from '@switchyard/shared';
import type { UsageLedgerStore } from '../store/usage-ledger-store';
import { usageEntryOf, type UsageEntry } from './usage-entry';

/**
 * Counts each usage.recorded event exactly once: append to the ledger (unique by event id), project
 * into the buckets (each bucket guarded by the event id), mark applied. Every step may be repeated
 * after a crash, so a redelivered event, a replay or the sweeper finishes what was left half done.
 */
export class UsageLedger {
  constructor(private readonly store: UsageLedgerStore) {}

  /** Records the event (if new) and makes sure it is projected; returns the entry as first stored. */
  async record(event: EventEnvelope<'usage.recorded'>): Promise<UsageEntry> {
    const { entry, applied } = await this.store.append(usageEntryOf(event));
    if (!applied) await this.apply(entry);
    return entry;
  }

  /**
   * Projects entries appended more than staleMs ago and never marked applied (a crash between
   * append and mark that no redelivery repaired). The delay keeps it off events a consumer is
   * handling right now. Returns what it applied.
   */
  async sweep(staleMs: number, limit = 500): Promise<UsageEntry[]> {
    const entries = await this.store.unapplied(new Date(Date.now() - staleMs).toISOString(), limit);
    for (const entry of entries) await this.apply(entry);
    return entries;
  }

  private async apply(entry: UsageEntry): Promise<void> {
    await this.store.project(entry);
    await this.store.markApplied(entry.eventId);
  }
}
