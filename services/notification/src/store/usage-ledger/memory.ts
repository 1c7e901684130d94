import { BoundedMap } from '@switchyard/shared';
import {
  bucketId,
  ZERO_TOTALS,
  type BucketDelta,
  type BucketKind,
  type BucketRef,
  type KeyedTotals,
  type ReportedKind,
  type UsageEntry,
  type UsageTotals,
} from '../../usage/usage-entry';
import {
  APPLIED_WINDOW,
  sumOf,
  totalsOf,
  type BatchJournal,
  type CallFilter,
  type UsageLedgerStore,
} from './port';

/** Newest first: by time, then event id. */
function newerFirst(a: UsageEntry, b: UsageEntry): number {
  return b.occurredAt.localeCompare(a.occurredAt) || b.eventId.localeCompare(a.eventId);
}

interface MemoryBucket extends KeyedTotals {
  organization: string;
  kind: BucketKind;
  period: string;
  /** Batch ids applied: two generations, as in the Mongo store. */
  applied: Set<string>;
  appliedPrev: Set<string>;
}

/**
 * Ledger entries (event ids) one process remembers at most: every billable call adds one. The
 * totals keep counting; only the oldest ids are forgotten, so an event redelivered after 50,000
 * newer ones would be counted again (the in-process bus redelivers only unacknowledged events).
 */
export const IN_MEMORY_LEDGER_ENTRIES = 50_000;

/** Same semantics as the Mongo store, in process memory, remembering a bounded window of event ids. */
export class InMemoryUsageLedgerStore implements UsageLedgerStore {
  /** Event id -> owning batch; the oldest forgotten first (IN_MEMORY_LEDGER_ENTRIES). */
  private readonly entries: BoundedMap<string>;
  /** The billed calls among them, oldest first, as many as ids are remembered. */
  private readonly callLog: UsageEntry[] = [];
  private readonly bucketsById = new Map<string, MemoryBucket>();
  /** Journals as JSON, as a database keeps them: what a caller does to its objects later does not reach them. */
  private readonly journalsByBatch = new Map<string, { journal: string; writtenAt: string }>();

  /** window: guard size (APPLIED_WINDOW; smaller in tests). */
  constructor(
    private readonly window = APPLIED_WINDOW,
    private readonly maxEntries = IN_MEMORY_LEDGER_ENTRIES,
  ) {
    this.entries = new BoundedMap(maxEntries);
  }

  async writeJournal(journal: BatchJournal): Promise<void> {
    if (!this.journalsByBatch.has(journal.batch))
      this.journalsByBatch.set(journal.batch, {
        journal: JSON.stringify(journal),
        writtenAt: new Date().toISOString(),
      });
  }

  async rewriteJournal(journal: BatchJournal): Promise<void> {
    const stored = this.journalsByBatch.get(journal.batch);
    if (stored) stored.journal = JSON.stringify(journal);
  }

  async staleJournals(writtenBefore: string, limit: number): Promise<BatchJournal[]> {
    return [...this.journalsByBatch.values()]
      .filter((j) => j.writtenAt < writtenBefore)
      .sort((a, b) => a.writtenAt.localeCompare(b.writtenAt))
      .slice(0, limit)
      .map((j) => JSON.parse(j.journal) as BatchJournal);
  }

  async dropJournal(batch: string): Promise<void> {
    this.journalsByBatch.delete(batch);
  }

  async append(batch: string, entries: UsageEntry[]): Promise<string[]> {
    const stored: string[] = [];
    for (const entry of entries) {
      if (this.entries.get(entry.eventId) !== undefined) stored.push(entry.eventId);
      else {
        this.entries.set(entry.eventId, batch);
        // A call's entry is flat (only refusals carry an object): a spread is a whole copy.
        if (!entry.refused) this.callLog.push({ ...entry });
      }
    }
    if (this.callLog.length > this.maxEntries)
      this.callLog.splice(0, this.callLog.length - this.maxEntries);
    return stored;
  }

  async calls(organization: string, filter: CallFilter): Promise<UsageEntry[]> {
    const before = filter.before;
    return this.callLog
      .filter(
        (e) =>
          e.organization === organization &&
          (!filter.keyId || e.keyId === filter.keyId) &&
          (!before ||
            newerFirst(e, { ...e, occurredAt: before.occurredAt, eventId: before.eventId }) > 0),
      )
      .sort(newerFirst)
      .slice(0, filter.limit)
      .map((e) => structuredClone(e));
  }

  async owners(eventIds: string[]): Promise<Map<string, string>> {
    const owners = new Map<string, string>();
    for (const id of eventIds) {
      const batch = this.entries.get(id);
      if (batch !== undefined) owners.set(id, batch);
    }
    return owners;
  }

  async applyDeltas(journal: BatchJournal): Promise<void> {
    for (const delta of journal.deltas) {
      const bucket = this.bucketOf(delta);
      if (bucket.applied.has(journal.batch) || bucket.appliedPrev.has(journal.batch)) continue;
      bucket.tokensInput += delta.tokensInput;
      bucket.tokensOutput += delta.tokensOutput;
      bucket.costNanos += delta.costNanos;
      bucket.calls += delta.calls;
      bucket.applied.add(journal.batch);
      if (bucket.applied.size >= this.window) {
        bucket.appliedPrev = bucket.applied;
        bucket.applied = new Set();
      }
    }
  }

  async totals(organization: string, period: string): Promise<UsageTotals> {
    const bucket = this.bucketsById.get(bucketId(organization, { kind: 'total', period, key: '' }));
    return bucket ? totalsOf(bucket) : { ...ZERO_TOTALS };
  }

  async buckets(organization: string, period: string, kind: ReportedKind): Promise<KeyedTotals[]> {
    return this.select(
      (b) => b.organization === organization && b.kind === kind && b.period === period,
    );
  }

  async sum(organization: string, buckets: BucketRef[]): Promise<UsageTotals> {
    return sumOf(buckets.map((ref) => this.bucketsById.get(bucketId(organization, ref))));
  }

  async daily(organization: string, fromDay: string, toDay: string): Promise<KeyedTotals[]> {
    return this.select(
      (b) =>
        b.organization === organization && b.kind === 'day' && b.key >= fromDay && b.key <= toDay,
    );
  }

  private bucketOf(delta: BucketDelta): MemoryBucket {
    const id = bucketId(delta.organization, delta.bucket);
    let bucket = this.bucketsById.get(id);
    if (!bucket) {
      const { kind, period, key } = delta.bucket;
      bucket = {
        organization: delta.organization,
        kind,
        period,
        key,
        ...ZERO_TOTALS,
        applied: new Set(),
        appliedPrev: new Set(),
      };
      this.bucketsById.set(id, bucket);
    }
    return bucket;
  }

  private select(match: (bucket: MemoryBucket) => boolean): KeyedTotals[] {
    return [...this.bucketsById.values()]
      .filter(match)
      .map((b) => ({ key: b.key, ...totalsOf(b) }));
  }
}
