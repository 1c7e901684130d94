import { randomUUID } from 'node:crypto';
import type { EventEnvelope } from '@switchyard/shared';
import type { BatchJournal, UsageLedgerStore } from '../store/usage-ledger/port';
import { deltasOf, refusalEntryOf, usageEntryOf, type UsageEntry } from './usage-entry';

/** The usage one call counted into one organization's month: what the thresholds look at. */
export interface CountedPeriod {
  organization: string;
  period: string;
  /** The entries counted now, in event order (empty when the events were counted before). */
  entries: UsageEntry[];
  /** The latest event time counted. */
  occurredAt: string;
}

/**
 * Counts usage.recorded events exactly once, a batch at a time: a journal of the batch (its
 * entries and what it adds per bucket), one insert of its entries (an id stored before belongs to
 * another batch and is left out), one bulk update of the buckets guarded by the batch id, then the
 * journal goes. Every step may be repeated: a journal left by a process that died is completed by
 * the sweeper, and the guards make a second application add nothing.
 */
export class UsageLedger {
  constructor(private readonly store: UsageLedgerStore) {}

  /**
   * Records the events; those counted before (repeats, replays) are not counted again, but their
   * periods are returned too, so their thresholds are checked again: a crash may have come between
   * counting and notifying.
   */
  async recordBatch(
    events: Array<EventEnvelope<'usage.recorded'> | EventEnvelope<'usage.refused'>>,
  ): Promise<CountedPeriod[]> {
    const entryOf = (e: (typeof events)[number]) =>
      e.type === 'usage.refused' ? refusalEntryOf(e) : usageEntryOf(e);
    const entries = [...new Map(events.map((e) => [e.id, entryOf(e)])).values()];
    if (entries.length === 0) return [];
    const journal = { batch: `bat_${randomUUID()}`, entries, deltas: deltasOf(entries) };
    await this.store.writeJournal(journal);
    return this.complete(journal);
  }

  /**
   * Completes batches whose journal is older than staleMs (a crash, or retries that ran out). The
   * delay keeps it off batches a consumer is handling right now.
   */
  async sweep(staleMs: number, limit = 50): Promise<CountedPeriod[]> {
    const counted: CountedPeriod[] = [];
    for (const journal of await this.store.staleJournals(
      new Date(Date.now() - staleMs).toISOString(),
      limit,
    ))
      counted.push(...(await this.complete(journal)));
    return counted;
  }

  private async complete(journal: BatchJournal): Promise<CountedPeriod[]> {
    const stored = await this.store.append(journal.batch, journal.entries);
    let others: UsageEntry[] = [];
    if (stored.length > 0) {
      // Ids some other batch inserted are counted by that one (done, or its journal completes it).
      const owners = await this.store.owners(stored);
      others = journal.entries.filter(
        (e) => owners.has(e.eventId) && owners.get(e.eventId) !== journal.batch,
      );
      if (others.length > 0) {
        const mine = journal.entries.filter((e) => !others.includes(e));
        journal = { batch: journal.batch, entries: mine, deltas: deltasOf(mine) };
        await this.store.rewriteJournal(journal);
      }
    }
    if (journal.entries.length > 0) await this.store.applyDeltas(journal);
    await this.store.dropJournal(journal.batch);
    return withPeriodsOf(countedPeriods(journal.entries), others);
  }
}

/** The counted periods plus those of entries counted earlier (without entries: nothing new was counted there). */
function withPeriodsOf(counted: CountedPeriod[], earlier: UsageEntry[]): CountedPeriod[] {
  const periods = new Map(counted.map((c) => [JSON.stringify([c.organization, c.period]), c]));
  for (const entry of earlier) {
    const key = JSON.stringify([entry.organization, entry.period]);
    if (!periods.has(key))
      periods.set(key, {
        organization: entry.organization,
        period: entry.period,
        entries: [],
        occurredAt: entry.occurredAt,
      });
  }
  return [...periods.values()];
}

function countedPeriods(entries: UsageEntry[]): CountedPeriod[] {
  const periods = new Map<string, CountedPeriod>();
  const periodOf = (organization: string, period: string, occurredAt: string) => {
    const key = JSON.stringify([organization, period]);
    let counted = periods.get(key);
    if (!counted) periods.set(key, (counted = { organization, period, entries: [], occurredAt }));
    if (occurredAt > counted.occurredAt) counted.occurredAt = occurredAt;
    return counted;
  };
  for (const entry of entries)
    periodOf(entry.organization, entry.period, entry.occurredAt).entries.push(entry);
  return [...periods.values()];
}
