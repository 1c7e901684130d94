import { randomUUID } from 'node:crypto';
import type { EventEnvelope } from '@switchyard/shared';
import type { BatchJournal, StoredEntry, UsageLedgerStore } from '../store/usage-ledger-store';
import { deltasOf, usageEntryOf, type UsageEntry } from './usage-entry';

/** The usage one call counted into one organization's month: what the thresholds look at. */
export interface CountedPeriod {
  organization: string;
  period: string;
  /** The entries counted, in event order (empty when a finished batch of a dead process was completed). */
  entries: UsageEntry[];
  /** The latest event time counted. */
  occurredAt: string;
}

/**
 * Counts usage.recorded events exactly once, a batch at a time: one lookup of the batch's event
 * ids in the ledger, one insert of the new ones, a journal of what the batch adds per bucket,
 * one bulk update of the buckets guarded by the batch id, one update marking the entries applied.
 * Every step may be repeated after a crash: a batch that has its journal is completed by whoever
 * finds its entries unapplied (redelivery or sweeper); entries of a batch that died before its
 * journal are adopted by the next batch (no bucket can have seen them).
 */
export class UsageLedger {
  constructor(private readonly store: UsageLedgerStore) {}

  /**
   * Records the events (repeats and events already counted are not counted again). The periods
   * of events counted before are returned too, so their thresholds are checked again: a crash
   * may have come between counting and notifying.
   */
  async recordBatch(events: Array<EventEnvelope<'usage.recorded'>>): Promise<CountedPeriod[]> {
    const entries = [...new Map(events.map((e) => [e.id, usageEntryOf(e)])).values()];
    const known = await this.store.lookup(entries.map((e) => e.eventId));
    const knownIds = new Set(known.map((k) => k.entry.eventId));
    const counted = await this.count(entries.filter((e) => !knownIds.has(e.eventId)), known.filter((k) => !k.applied));
    return withPeriodsOf(counted, known.filter((k) => k.applied).map((k) => k.entry));
  }

  /**
   * Completes entries appended more than staleMs ago and never marked applied (a crash that no
   * redelivery repaired). The delay keeps it off batches a consumer is handling right now.
   */
  async sweep(staleMs: number, limit = 500): Promise<CountedPeriod[]> {
    return this.count([], await this.store.unapplied(new Date(Date.now() - staleMs).toISOString(), limit));
  }

  private async count(fresh: UsageEntry[], unfinished: StoredEntry[]): Promise<CountedPeriod[]> {
    const journals = await this.store.journals([...new Set(unfinished.flatMap((u) => (u.batch ? [u.batch] : [])))]);
    for (const journal of journals) await this.complete(journal);
    const journaled = new Set(journals.map((j) => j.batch));
    const orphans = unfinished.filter((u) => !u.batch || !journaled.has(u.batch)).map((u) => u.entry);
    const batch = `bat_${randomUUID()}`;
    const inserted = await this.store.append(batch, fresh);
    const adopted = new Set(await this.store.adopt(batch, orphans.map((e) => e.eventId)));
    const mine = [...orphans.filter((e) => adopted.has(e.eventId)), ...fresh.filter((e) => inserted.has(e.eventId))];
    if (mine.length > 0) {
      const journal = { batch, eventIds: mine.map((e) => e.eventId), deltas: deltasOf(mine) };
      await this.store.writeJournal(journal);
      await this.complete(journal);
    }
    return countedPeriods(mine, journals);
  }

  private async complete(journal: BatchJournal): Promise<void> {
    await this.store.applyDeltas(journal);
    await this.store.finish(journal);
  }
}

/** The counted periods plus those of entries counted earlier (without entries: nothing new was counted there). */
function withPeriodsOf(counted: CountedPeriod[], earlier: UsageEntry[]): CountedPeriod[] {
  const periods = new Map(counted.map((c) => [JSON.stringify([c.organization, c.period]), c]));
  for (const entry of earlier) {
    const key = JSON.stringify([entry.organization, entry.period]);
    if (!periods.has(key)) periods.set(key, { organization: entry.organization, period: entry.period, entries: [], occurredAt: entry.occurredAt });
  }
  return [...periods.values()];
}

function countedPeriods(entries: UsageEntry[], completed: BatchJournal[]): CountedPeriod[] {
  const periods = new Map<string, CountedPeriod>();
  const periodOf = (organization: string, period: string, occurredAt: string) => {
    const key = JSON.stringify([organization, period]);
    let counted = periods.get(key);
    if (!counted) periods.set(key, (counted = { organization, period, entries: [], occurredAt }));
    if (occurredAt > counted.occurredAt) counted.occurredAt = occurredAt;
    return counted;
  };
  for (const journal of completed) {
    for (const delta of journal.deltas) if (delta.bucket.kind === 'total') periodOf(delta.organization, delta.bucket.period, delta.occurredAt);
  }
  for (const entry of entries) periodOf(entry.organization, entry.period, entry.occurredAt).entries.push(entry);
  return [...periods.values()];
}
