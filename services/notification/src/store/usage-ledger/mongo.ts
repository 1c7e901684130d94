import { bulkWriteSkippingDuplicates } from '@switchyard/shared';
import type { AnyBulkWriteOperation, Db, Filter, UpdateFilter } from 'mongodb';
import {
  bucketId,
  ZERO_TOTALS,
  type BucketDelta,
  type BucketKind,
  type BudgetDayKind,
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
import { Collections } from '../collections';

interface LedgerDoc extends UsageEntry {
  /** The event id: the unique insert that makes an event count once. */
  _id: string;
  /** The batch that inserted it (entries from before batches have none: they were counted). */
  batch?: string;
  appendedAt: string;
}

interface BucketDoc extends UsageTotals {
  _id: string;
  organization: string;
  kind: BucketKind;
  period: string;
  key: string;
  /** Batch ids added to this bucket since the last rotation: the per-bucket guard, with appliedPrev. */
  applied: string[];
  appliedCount: number;
  /** The previous generation of ids (so the guard always covers the last APPLIED_WINDOW ids at least). */
  appliedPrev?: string[];
  /** Total buckets only: the model, endpoint, day and refused keys of the month, so reading them is by _id. */
  keys?: Partial<Record<ListedKind, string[]>>;
  /** Set when the total was created listing keys; a total from before lacks some and is read by query. */
  keysListed?: boolean;
}

/**
 * The kinds a month's total lists the keys of (so reading them is by _id). End users are not
 * listed (an organization may have any number of them: one document would grow without bound),
 * nor budgets' days (read by _id, their keys known).
 */
type ListedKind = Exclude<BucketKind, 'total' | 'user' | BudgetDayKind>;

function isListed(kind: BucketKind): kind is ListedKind {
  return !['total', 'user', 'key-day', 'team-day', 'user-day'].includes(kind);
}

/** The model, endpoint and day keys each (organization, month) of a batch adds to, by the total bucket's _id. */
function keysByTotal(deltas: BucketDelta[]): Map<string, Record<ListedKind, string[]>> {
  const keys = new Map<string, Record<ListedKind, string[]>>();
  for (const { organization, bucket } of deltas) {
    if (!isListed(bucket.kind)) continue;
    const id = totalId(organization, bucket.period);
    const found = keys.get(id) ?? {
      model: [],
      endpoint: [],
      day: [],
      refused: [],
      key: [],
      team: [],
    };
    found[bucket.kind].push(bucket.key);
    keys.set(id, found);
  }
  return keys;
}

function totalId(organization: string, period: string): string {
  return bucketId(organization, { kind: 'total', period, key: '' });
}

/** The months (YYYY-MM) from fromDay's to toDay's inclusive. */
function monthsBetween(fromDay: string, toDay: string): string[] {
  const months: string[] = [];
  for (
    const month = new Date(`${fromDay.slice(0, 7)}-01T00:00:00Z`);
    month.toISOString().slice(0, 7) <= toDay.slice(0, 7);
    month.setUTCMonth(month.getUTCMonth() + 1)
  ) {
    months.push(month.toISOString().slice(0, 7));
  }
  return months;
}

/** What reads of a bucket return: its key and counts, never the guards. */
const COUNTS = { key: 1, tokensInput: 1, tokensOutput: 1, costNanos: 1, calls: 1 } as const;

interface JournalDoc extends Omit<BatchJournal, 'batch'> {
  _id: string;
  writtenAt: string;
}

/**
 * The ledger on MongoDB without transactions, five round trips per batch whatever its size, none
 * of which reads or updates the (ever growing) ledger: insert the journal, insert the entries
 * (the unique _id decides), bulk $inc upserts by bucket _id, the buckets' guard sizes by _id,
 * delete the journal. owners() runs only when a batch meets ids stored before (redeliveries,
 * replays); staleJournals() reads the small journal collection by its writtenAt index.
 * Each bucket update is guarded by `applied: {$ne: batch}` in the same document, so applying a
 * batch twice counts it once, also when two writers apply the same batch at once (an evicted
 * group member still writing while its successor completes the batch).
 */
export class MongoUsageLedgerStore implements UsageLedgerStore {
  private readonly ledger;
  private readonly projection;
  private readonly journal;

  /** window: guard size (APPLIED_WINDOW; smaller in tests). */
  constructor(
    db: Db,
    private readonly window = APPLIED_WINDOW,
  ) {
    this.ledger = db.collection<LedgerDoc>(Collections.usageLedger);
    this.projection = db.collection<BucketDoc>(Collections.usageProjection);
    this.journal = db.collection<JournalDoc>(Collections.usageBatches);
  }

  async writeJournal(journal: BatchJournal): Promise<void> {
    await this.journal.insertOne({
      _id: journal.batch,
      entries: journal.entries,
      deltas: journal.deltas,
      writtenAt: new Date().toISOString(),
    });
  }

  async rewriteJournal(journal: BatchJournal): Promise<void> {
    await this.journal.updateOne(
      { _id: journal.batch },
      { $set: { entries: journal.entries, deltas: journal.deltas } },
    );
  }

  async staleJournals(writtenBefore: string, limit: number): Promise<BatchJournal[]> {
    const docs = await this.journal
      .find({ writtenAt: { $lt: writtenBefore } })
      .sort({ writtenAt: 1 })
      .limit(limit)
      .toArray();
    return docs.map((d) => ({ batch: d._id, entries: d.entries, deltas: d.deltas }));
  }

  async dropJournal(batch: string): Promise<void> {
    await this.journal.deleteOne({ _id: batch });
  }

  async append(batch: string, entries: UsageEntry[]): Promise<string[]> {
    if (entries.length === 0) return [];
    const appendedAt = new Date().toISOString();
    const docs = entries.map((entry) => ({ _id: entry.eventId, ...entry, batch, appendedAt }));
    const stored = await bulkWriteSkippingDuplicates(
      this.ledger,
      docs.map((document) => ({ insertOne: { document } })),
    );
    return [...stored].map((index) => docs[index]!._id);
  }

  async owners(eventIds: string[]): Promise<Map<string, string>> {
    const docs = await this.ledger
      .find({ _id: { $in: eventIds } }, { projection: { _id: 1, batch: 1 } })
      .toArray();
    return new Map(docs.map((d) => [d._id, d.batch ?? ''] as const));
  }

  /** One bulk write of guarded $inc upserts, then the rotation of the few guards that are full. */
  async applyDeltas(journal: BatchJournal): Promise<void> {
    const guard = (delta: BucketDelta) => ({
      _id: bucketId(delta.organization, delta.bucket),
      applied: { $ne: journal.batch },
      appliedPrev: { $ne: journal.batch },
    });
    const keys = keysByTotal(journal.deltas);
    const change = (delta: BucketDelta) => {
      const update: UpdateFilter<BucketDoc> = {
        $inc: {
          tokensInput: delta.tokensInput,
          tokensOutput: delta.tokensOutput,
          costNanos: delta.costNanos,
          calls: delta.calls,
          appliedCount: 1,
        },
        $push: { applied: journal.batch },
      };
      // Under the same guard as the counts: a bucket counted is always listed in its month's total.
      const listed = keys.get(bucketId(delta.organization, delta.bucket));
      if (listed)
        update.$addToSet = Object.fromEntries(
          Object.entries(listed).map(([kind, names]) => [`keys.${kind}`, { $each: names }]),
        ) as UpdateFilter<BucketDoc>['$addToSet'];
      return update;
    };
    const upsert = (delta: BucketDelta) => ({
      ...change(delta),
      $setOnInsert: {
        organization: delta.organization,
        kind: delta.bucket.kind,
        period: delta.bucket.period,
        key: delta.bucket.key,
        ...(delta.bucket.kind === 'total' && { keysListed: true }),
      },
    });
    const upserts: AnyBulkWriteOperation<BucketDoc>[] = journal.deltas.map((delta) => ({
      updateOne: { filter: guard(delta), update: upsert(delta), upsert: true },
    }));
    // A duplicate key: the bucket exists and lists the batch already (a re-application: the
    // update without upsert matches nothing), or another writer created it just now (it applies).
    const existing = await bulkWriteSkippingDuplicates(this.projection, upserts);
    for (const index of existing) {
      const delta = journal.deltas[index]!;
      await this.projection.updateOne(guard(delta), change(delta));
    }
    await this.rotateFull(journal.deltas.map((d) => bucketId(d.organization, d.bucket)));
  }

  async totals(organization: string, period: string): Promise<UsageTotals> {
    const doc = await this.projection.findOne(
      { _id: totalId(organization, period) },
      { projection: COUNTS },
    );
    return doc ? totalsOf(doc) : { ...ZERO_TOTALS };
  }

  buckets(organization: string, period: string, kind: ReportedKind): Promise<KeyedTotals[]> {
    // End users by the (organization, kind, period) index: their keys are not listed.
    if (kind === 'user') return this.bucketsByQuery({ organization, kind, period });
    return this.listed(organization, period, kind, () => true);
  }

  async sum(organization: string, buckets: BucketRef[]): Promise<UsageTotals> {
    const docs = await this.projection
      .find(
        { _id: { $in: buckets.map((ref) => bucketId(organization, ref)) } },
        { projection: COUNTS },
      )
      .toArray();
    return sumOf(docs);
  }

  async calls(organization: string, filter: CallFilter): Promise<UsageEntry[]> {
    const query: Filter<LedgerDoc> = { organization, refused: { $exists: false } };
    if (filter.keyId) query.keyId = filter.keyId;
    if (filter.before)
      query.$or = [
        { occurredAt: { $lt: filter.before.occurredAt } },
        { occurredAt: filter.before.occurredAt, _id: { $lt: filter.before.eventId } },
      ];
    const docs = await this.ledger
      .find(query)
      .sort({ occurredAt: -1, _id: -1 })
      .limit(filter.limit)
      .toArray();
    return docs.map(({ _id: _, batch: _batch, appendedAt: _at, ...entry }) => entry);
  }

  /** The day buckets of each month the range touches. */
  async daily(organization: string, fromDay: string, toDay: string): Promise<KeyedTotals[]> {
    const inRange = (day: string) => day >= fromDay && day <= toDay;
    const months = await Promise.all(
      monthsBetween(fromDay, toDay).map((period) =>
        this.listed(organization, period, 'day', inRange),
      ),
    );
    return months.flat();
  }

  /** The keys of a kind listed in the month's total bucket, then each of those buckets by _id. */
  private async listed(
    organization: string,
    period: string,
    kind: ListedKind,
    wanted: (key: string) => boolean,
  ): Promise<KeyedTotals[]> {
    const total = await this.projection.findOne(
      { _id: totalId(organization, period) },
      { projection: { keys: 1, keysListed: 1 } },
    );
    if (!total) return [];
    // A total from before the key lists: its buckets by a query.
    if (!total.keysListed)
      return (await this.bucketsByQuery({ organization, kind, period })).filter((b) =>
        wanted(b.key),
      );
    return this.bucketsById(
      organization,
      (total.keys?.[kind] ?? []).filter(wanted).map((key) => ({ kind, period, key })),
    );
  }

  private async bucketsById(organization: string, refs: BucketRef[]): Promise<KeyedTotals[]> {
    const docs = await this.projection
      .find(
        { _id: { $in: refs.map((ref) => bucketId(organization, ref)) } },
        { projection: COUNTS },
      )
      .toArray();
    const byId = new Map(docs.map((doc) => [doc._id, doc]));
    return refs.flatMap((ref) => {
      const doc = byId.get(bucketId(organization, ref));
      return doc ? [{ key: doc.key, ...totalsOf(doc) }] : [];
    });
  }

  private async bucketsByQuery(filter: Filter<BucketDoc>): Promise<KeyedTotals[]> {
    const docs = await this.projection.find(filter, { projection: COUNTS }).toArray();
    return docs.map((doc) => ({ key: doc.key, ...totalsOf(doc) }));
  }

  /**
   * Bounds the guards without $push's $slice (the local engine, FerretDB, ignores it): a guard holding APPLIED_WINDOW ids
   * becomes `appliedPrev` and a new generation starts, so it covers the last APPLIED_WINDOW to
   * 2 x APPLIED_WINDOW batches.
   */
  private async rotateFull(ids: string[]): Promise<void> {
    const found = await this.projection
      .find(
        { _id: { $in: ids }, appliedCount: { $gte: this.window } },
        { projection: { applied: 1 } },
      )
      .toArray();
    for (const doc of found) {
      await this.projection.updateOne(
        { _id: doc._id, appliedCount: { $gte: this.window } },
        { $set: { appliedPrev: doc.applied, applied: [], appliedCount: 0 } },
      );
    }
  }
}
