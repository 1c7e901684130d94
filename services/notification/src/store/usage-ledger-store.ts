import { bucketId, ZERO_TOTALS, type BucketDelta, type BucketKind, type KeyedTotals, type UsageEntry, type UsageTotals } from '../usage/usage-entry';

/**
 * How many batch ids each projection bucket remembers at least (two generations of this size are
 * kept). A batch is re-applied only while it is unfinished (its owner died, or its retries ran
 * out and the sweeper takes it up), so a bounded window makes re-application a no-op.
 */
export const APPLIED_WINDOW = 1000;

/** A ledger entry as stored: counted in the projection yet or not, and the batch that owns it. */
export interface StoredEntry {
  entry: UsageEntry;
  applied: boolean;
  /** Absent on entries from before batches: they count as orphans (adopted by the next batch). */
  batch?: string;
}

/**
 * A batch about to be projected: written (one atomic document) once its entries are in the
 * ledger, removed once they are marked applied. A batch with a journal is completed by whoever
 * finds it unfinished; entries of a batch without one are adopted by the next batch.
 */
export interface BatchJournal {
  batch: string;
  eventIds: string[];
  deltas: BucketDelta[];
}

/**
 * The usage ledger: an append-only log of usage entries (unique by event id) and the projection
 * built from it (totals per organization and month, by model, by endpoint and by day).
 *
 * Exactly-once without transactions, per batch: append() decides which events are new (unique
 * ids); writeJournal() fixes what the batch adds; applyDeltas() adds each delta to its bucket
 * unless the bucket lists the batch id already (so re-applying after a crash completes only the
 * buckets that were missed); finish() marks the entries applied and drops the journal.
 */
export interface UsageLedgerStore {
  /** The stored entries of these event ids (one query on the ledger's key). */
  lookup(eventIds: string[]): Promise<StoredEntry[]>;
  /** Appends unapplied entries owned by the batch; returns the ids this call inserted (one stored meanwhile is left out). */
  append(batch: string, entries: UsageEntry[]): Promise<Set<string>>;
  /** Moves unapplied entries to the batch; returns the ids it now owns. */
  adopt(batch: string, eventIds: string[]): Promise<string[]>;
  writeJournal(journal: BatchJournal): Promise<void>;
  /** The journals of these batches that exist. */
  journals(batches: string[]): Promise<BatchJournal[]>;
  /** Adds each delta to its bucket unless the bucket lists the batch already. */
  applyDeltas(journal: BatchJournal): Promise<void>;
  /** Marks the batch's entries applied, then removes its journal. */
  finish(journal: BatchJournal): Promise<void>;
  /** Entries appended before the given ISO time and never marked applied (oldest first). */
  unapplied(appendedBefore: string, limit: number): Promise<StoredEntry[]>;
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

interface MemoryLedgerEntry extends StoredEntry {
  appendedAt: string;
}

/** Same semantics as the Mongo store, in process memory. */
export class InMemoryUsageLedgerStore implements UsageLedgerStore {
  private readonly entries = new Map<string, MemoryLedgerEntry>();
  private readonly bucketsById = new Map<string, MemoryBucket>();
  private readonly journalsByBatch = new Map<string, BatchJournal>();
  /** Event ids appended and not marked applied yet: what the sweeper looks at, not the whole log. */
  private readonly unappliedIds = new Set<string>();

  /** window: guard size (APPLIED_WINDOW; smaller in tests). */
  constructor(private readonly window = APPLIED_WINDOW) {}

  async lookup(eventIds: string[]): Promise<StoredEntry[]> {
    return eventIds.flatMap((id) => {
      const stored = this.entries.get(id);
      return stored ? [storedCopy(stored)] : [];
    });
  }

  async append(batch: string, entries: UsageEntry[]): Promise<Set<string>> {
    const inserted = new Set<string>();
    for (const entry of entries) {
      if (this.entries.has(entry.eventId)) continue;
      this.entries.set(entry.eventId, { entry: { ...entry }, applied: false, batch, appendedAt: new Date().toISOString() });
      this.unappliedIds.add(entry.eventId);
      inserted.add(entry.eventId);
    }
    return inserted;
  }

  async adopt(batch: string, eventIds: string[]): Promise<string[]> {
    return eventIds.filter((id) => {
      const stored = this.entries.get(id);
      if (!stored || stored.applied) return false;
      stored.batch = batch;
      return true;
    });
  }

  async writeJournal(journal: BatchJournal): Promise<void> {
    if (!this.journalsByBatch.has(journal.batch)) this.journalsByBatch.set(journal.batch, structuredClone(journal));
  }

  async journals(batches: string[]): Promise<BatchJournal[]> {
    return batches.flatMap((batch) => {
      const journal = this.journalsByBatch.get(batch);
      return journal ? [structuredClone(journal)] : [];
    });
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

  async finish(journal: BatchJournal): Promise<void> {
    for (const id of journal.eventIds) {
      const stored = this.entries.get(id);
      if (stored) stored.applied = true;
      this.unappliedIds.delete(id);
    }
    this.journalsByBatch.delete(journal.batch);
  }

  async unapplied(appendedBefore: string, limit: number): Promise<StoredEntry[]> {
    return [...this.unappliedIds]
      .map((id) => this.entries.get(id)!)
      .filter((e) => e.appendedAt < appendedBefore)
      .sort((a, b) => a.appendedAt.localeCompare(b.appendedAt))
      .slice(0, limit)
      .map(storedCopy);
  }

  async totals(organization: string, period: string): Promise<UsageTotals> {
    const bucket = this.bucketsById.get(bucketId(organization, { kind: 'total', period, key: '' }));
    return bucket ? totalsOf(bucket) : { ...ZERO_TOTALS };
  }

  async buckets(organization: string, period: string, kind: 'model' | 'endpoint'): Promise<KeyedTotals[]> {
    return this.select((b) => b.organization === organization && b.kind === kind && b.period === period);
  }

  async daily(organization: string, fromDay: string, toDay: string): Promise<KeyedTotals[]> {
    return this.select((b) => b.organization === organization && b.kind === 'day' && b.key >= fromDay && b.key <= toDay);
  }

  private bucketOf(delta: BucketDelta): MemoryBucket {
    const id = bucketId(delta.organization, delta.bucket);
    let bucket = this.bucketsById.get(id);
    if (!bucket) {
      const { kind, period, key } = delta.bucket;
      bucket = { organization: delta.organization, kind, period, key, ...ZERO_TOTALS, applied: new Set(), appliedPrev: new Set() };
      this.bucketsById.set(id, bucket);
    }
    return bucket;
  }

  private select(match: (bucket: MemoryBucket) => boolean): KeyedTotals[] {
    return [...this.bucketsById.values()].filter(match).map((b) => ({ key: b.key, ...totalsOf(b) }));
  }
}

function storedCopy(stored: StoredEntry): StoredEntry {
  return { entry: { ...stored.entry }, applied: stored.applied, ...(stored.batch ? { batch: stored.batch } : {}) };
}

export function totalsOf(source: UsageTotals): UsageTotals {
  return { tokensInput: source.tokensInput, tokensOutput: source.tokensOutput, costNanos: source.costNanos, calls: source.calls };
}
