import {
  bucketId,
  ZERO_TOTALS,
  type BucketDelta,
  type BucketKind,
  type KeyedTotals,
  type UsageEntry,
  type UsageTotals,
} from '../usage/usage-entry';

/**
 * How many batch ids each projection bucket remembers at least (two generations of this size are
 * kept). A batch is re-applied only while it is unfinished (its owner died, or its retries ran
 * out and the sweeper takes it up), so a bounded window makes re-application a no-op.
 */
export const APPLIED_WINDOW = 1000;

/**
 * A batch being counted: written (one atomic document) before anything else of the batch, removed
 * once the batch is in the projection. Its entries are the ledger entries it owns; a journal left
 * behind by a process that died is completed by the sweeper.
 */
export interface BatchJournal {
  batch: string;
  entries: UsageEntry[];
  deltas: BucketDelta[];
}

/**
 * The usage ledger: an append-only log of usage entries (unique by event id, each owned by the
 * batch that inserted it) and the projection built from it (totals per organization and month,
 * by model, by endpoint and by day).
 *
 * Exactly-once without transactions, per batch: writeJournal() fixes what the batch may add;
 * append() decides which events are the batch's (unique ids: an id stored by another batch is
 * not, see owners()); applyDeltas() adds each delta to its bucket unless the bucket lists the
 * batch id already (so completing a batch again after a crash adds only what was missed);
 * dropJournal() ends it. No step updates the ledger, and no step scans it.
 */
export interface UsageLedgerStore {
  writeJournal(journal: BatchJournal): Promise<void>;
  /** Replaces a journal's entries and deltas (only before any of them is applied). */
  rewriteJournal(journal: BatchJournal): Promise<void>;
  /** Journals written before the ISO time, oldest first: batches whose writer died or gave up. */
  staleJournals(writtenBefore: string, limit: number): Promise<BatchJournal[]>;
  dropJournal(batch: string): Promise<void>;
  /** Appends the entries owned by the batch; returns the ids that were stored already (by any batch). */
  append(batch: string, entries: UsageEntry[]): Promise<string[]>;
  /** The batch that owns each of these stored entries. */
  owners(eventIds: string[]): Promise<Map<string, string>>;
  /** Adds each delta to its bucket unless the bucket lists the batch already. */
  applyDeltas(journal: BatchJournal): Promise<void>;
  totals(organization: string, period: string): Promise<UsageTotals>;
  /** The period's buckets of one kind (model or endpoint), unordered. */
  buckets(organization: string, period: string, kind: 'model' | 'endpoint'): Promise<KeyedTotals[]>;
  /** Day buckets from fromDay to toDay inclusive (YYYY-MM-DD), unordered; days without usage are absent. */
  daily(organization: string, fromDay: string, toDay: string): Promise<KeyedTotals[]>;
}

interface MemoryBucket extends KeyedTotals {
  organization: string;
  kind: BucketKind;
  period: string;
  /** Batch ids applied: two generations, as in the Mongo store. */
  applied: Set<string>;
  appliedPrev: Set<string>;
}

/** Same semantics as the Mongo store, in process memory. */
export class InMemoryUsageLedgerStore implements UsageLedgerStore {
  /** Event id -> owning batch. */
  private readonly entries = new Map<string, string>();
  private readonly bucketsById = new Map<string, MemoryBucket>();
  private readonly journalsByBatch = new Map<
    string,
    { journal: BatchJournal; writtenAt: string }
  >();

  /** window: guard size (APPLIED_WINDOW; smaller in tests). */
  constructor(private readonly window = APPLIED_WINDOW) {}

  async writeJournal(journal: BatchJournal): Promise<void> {
    if (!this.journalsByBatch.has(journal.batch))
      this.journalsByBatch.set(journal.batch, {
        journal: structuredClone(journal),
        writtenAt: new Date().toISOString(),
      });
  }

  async rewriteJournal(journal: BatchJournal): Promise<void> {
    const stored = this.journalsByBatch.get(journal.batch);
    if (stored) stored.journal = structuredClone(journal);
  }

  async staleJournals(writtenBefore: string, limit: number): Promise<BatchJournal[]> {
    return [...this.journalsByBatch.values()]
      .filter((j) => j.writtenAt < writtenBefore)
      .sort((a, b) => a.writtenAt.localeCompare(b.writtenAt))
      .slice(0, limit)
      .map((j) => structuredClone(j.journal));
  }

  async dropJournal(batch: string): Promise<void> {
    this.journalsByBatch.delete(batch);
  }

  async append(batch: string, entries: UsageEntry[]): Promise<string[]> {
    const stored: string[] = [];
    for (const entry of entries) {
      if (this.entries.has(entry.eventId)) stored.push(entry.eventId);
      else this.entries.set(entry.eventId, batch);
    }
    return stored;
  }

  async owners(eventIds: string[]): Promise<Map<string, string>> {
    return new Map(
      eventIds.flatMap((id) =>
        this.entries.has(id) ? [[id, this.entries.get(id)!] as const] : [],
      ),
    );
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

  async buckets(
    organization: string,
    period: string,
    kind: 'model' | 'endpoint',
  ): Promise<KeyedTotals[]> {
    return this.select(
      (b) => b.organization === organization && b.kind === kind && b.period === period,
    );
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

export function totalsOf(source: UsageTotals): UsageTotals {
  return {
    tokensInput: source.tokensInput,
    tokensOutput: source.tokensOutput,
    costNanos: source.costNanos,
    calls: source.calls,
  };
}
