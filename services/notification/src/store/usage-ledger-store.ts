import { bucketId, bucketsOf, ZERO_TOTALS, type BucketKind, type KeyedTotals, type UsageEntry, type UsageTotals } from '../usage/usage-entry';

/**
 * How many event ids each projection bucket remembers at least (two generations of this size are
 * kept, see the stores). Re-applying an entry is only needed for
 * the few most recent events (a crash between projecting and marking applied), so a bounded
 * window is enough to make re-application a no-op.
 */
export const APPLIED_WINDOW = 2000;

/**
 * The usage ledger: an append-only log of usage entries (unique by event id) and the projection
 * built from it (totals per organization and month, by model, by endpoint and by day).
 *
 * Exactly-once without transactions: append() decides whether an event is new (unique insert);
 * project() adds an entry to each of its buckets unless that bucket already lists the event id
 * (so re-projecting after a crash completes only the buckets that were missed); markApplied()
 * ends the cycle. Entries never marked are found by unapplied() and projected again.
 */
export interface UsageLedgerStore {
  /** Appends the entry unless its event id is there already; returns the stored entry and whether it was applied. */
  append(entry: UsageEntry): Promise<{ entry: UsageEntry; applied: boolean }>;
  /** Adds the entry to every bucket that does not list its event id yet. */
  project(entry: UsageEntry): Promise<void>;
  markApplied(eventId: string): Promise<void>;
  /** Entries appended before the given ISO time and never marked applied (oldest first). */
  unapplied(appendedBefore: string, limit: number): Promise<UsageEntry[]>;
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
  /** Sets, not the Mongo store's arrays: the guard is checked on every event, in O(1). */
  applied: Set<string>;
  appliedPrev: Set<string>;
}

interface MemoryLedgerEntry {
  entry: UsageEntry;
  applied: boolean;
  appendedAt: string;
}

/** Same semantics as the Mongo store, in process memory. */
export class InMemoryUsageLedgerStore implements UsageLedgerStore {
  private readonly entries = new Map<string, MemoryLedgerEntry>();
  private readonly bucketsById = new Map<string, MemoryBucket>();
  /** Event ids appended and not marked applied yet: what the sweeper looks at, not the whole log. */
  private readonly unappliedIds = new Set<string>();

  /** window: guard size (APPLIED_WINDOW; smaller in tests). */
  constructor(private readonly window = APPLIED_WINDOW) {}

  async append(entry: UsageEntry): Promise<{ entry: UsageEntry; applied: boolean }> {
    const existing = this.entries.get(entry.eventId);
    if (existing) return { entry: { ...existing.entry }, applied: existing.applied };
    this.entries.set(entry.eventId, { entry: { ...entry }, applied: false, appendedAt: new Date().toISOString() });
    this.unappliedIds.add(entry.eventId);
    return { entry: { ...entry }, applied: false };
  }

  async project(entry: UsageEntry): Promise<void> {
    for (const ref of bucketsOf(entry)) {
      const id = bucketId(entry.organization, ref);
      let bucket = this.bucketsById.get(id);
      if (!bucket) {
        bucket = { organization: entry.organization, kind: ref.kind, period: ref.period, key: ref.key, ...ZERO_TOTALS, applied: new Set(), appliedPrev: new Set() };
        this.bucketsById.set(id, bucket);
      }
      if (bucket.applied.has(entry.eventId) || bucket.appliedPrev.has(entry.eventId)) continue;
      bucket.tokensInput += entry.tokensInput;
      bucket.tokensOutput += entry.tokensOutput;
      bucket.costNanos += entry.costNanos;
      bucket.calls += 1;
      bucket.applied.add(entry.eventId);
      // Two generations, as in the Mongo store: the guard covers the last APPLIED_WINDOW ids at least.
      if (bucket.applied.size >= this.window) {
        bucket.appliedPrev = bucket.applied;
        bucket.applied = new Set();
      }
    }
  }

  async markApplied(eventId: string): Promise<void> {
    const stored = this.entries.get(eventId);
    if (stored) stored.applied = true;
    this.unappliedIds.delete(eventId);
  }

  async unapplied(appendedBefore: string, limit: number): Promise<UsageEntry[]> {
    return [...this.unappliedIds]
      .map((id) => this.entries.get(id)!)
      .filter((e) => e.appendedAt < appendedBefore)
      .sort((a, b) => a.appendedAt.localeCompare(b.appendedAt))
      .slice(0, limit)
      .map((e) => ({ ...e.entry }));
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

  private select(match: (bucket: MemoryBucket) => boolean): KeyedTotals[] {
    return [...this.bucketsById.values()].filter(match).map((b) => ({ key: b.key, ...totalsOf(b) }));
  }
}

export function totalsOf(source: UsageTotals): UsageTotals {
  return { tokensInput: source.tokensInput, tokensOutput: source.tokensOutput, costNanos: source.costNanos, calls: source.calls };
}
