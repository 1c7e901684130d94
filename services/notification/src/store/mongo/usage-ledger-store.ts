import { isDuplicateKeyError } from '@switchyard/shared';
import type { AnyBulkWriteOperation, Db } from 'mongodb';
import { bucketId, ZERO_TOTALS, type BucketDelta, type BucketKind, type KeyedTotals, type UsageEntry, type UsageTotals } from '../../usage/usage-entry';
import { APPLIED_WINDOW, totalsOf, type BatchJournal, type UsageLedgerStore } from '../usage-ledger-store';
import { Collections } from './collections';

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
}

interface JournalDoc extends Omit<BatchJournal, 'batch'> {
  _id: string;
  writtenAt: string;
}

/**
 * The ledger on MongoDB/FerretDB without transactions, five round trips per batch whatever its
 * size, none of which reads or updates the (ever growing) ledger: insert the journal, insertMany
 * the entries (the unique _id decides), one bulkWrite of $inc upserts by bucket _id, one find of
 * full guards by _id, delete the journal. owners() ($in on _id) runs only when a batch meets ids
 * stored before (redeliveries, replays); staleJournals() reads the small journal collection by
 * its writtenAt index. FerretDB serves neither $in nor updateMany from an index (it scans), so
 * the common path uses neither on the ledger.
 * Each bucket update is guarded by `applied: {$ne: batch}` in the same document, so applying a
 * batch twice counts it once. The guard is not atomic on FerretDB under truly concurrent writers
 * of the same batch, which only happens if a member evicted from its group keeps writing while
 * its successor completes the same batch.
 */
export class MongoUsageLedgerStore implements UsageLedgerStore {
  private readonly ledger;
  private readonly projection;
  private readonly journal;

  /** window: guard size (APPLIED_WINDOW; smaller in tests). */
  constructor(db: Db, private readonly window = APPLIED_WINDOW) {
    this.ledger = db.collection<LedgerDoc>(Collections.usageLedger);
    this.projection = db.collection<BucketDoc>(Collections.usageProjection);
    this.journal = db.collection<JournalDoc>(Collections.usageBatches);
  }

  async writeJournal(journal: BatchJournal): Promise<void> {
    await this.journal.insertOne({ _id: journal.batch, entries: journal.entries, deltas: journal.deltas, writtenAt: new Date().toISOString() });
  }

  async rewriteJournal(journal: BatchJournal): Promise<void> {
    await this.journal.updateOne({ _id: journal.batch }, { $set: { entries: journal.entries, deltas: journal.deltas } });
  }

  async staleJournals(writtenBefore: string, limit: number): Promise<BatchJournal[]> {
    const docs = await this.journal.find({ writtenAt: { $lt: writtenBefore } }).sort({ writtenAt: 1 }).limit(limit).toArray();
    return docs.map((d) => ({ batch: d._id, entries: d.entries, deltas: d.deltas }));
  }

  async dropJournal(batch: string): Promise<void> {
    await this.journal.deleteOne({ _id: batch });
  }

  async append(batch: string, entries: UsageEntry[]): Promise<string[]> {
    if (entries.length === 0) return [];
    const appendedAt = new Date().toISOString();
    const docs = entries.map((entry) => ({ _id: entry.eventId, ...entry, batch, appendedAt }));
    try {
      await this.ledger.insertMany(docs, { ordered: false });
      return [];
    } catch (error) {
      const failed = writeErrorsOf(error);
      if (!failed || failed.some((e) => !isDuplicateKeyError(e))) throw error;
      // FerretDB may stop at the first error whatever `ordered` says: insert the rest one by one.
      const stored = new Set(failed.map((e) => docs[e.index]!._id));
      const last = Math.max(...failed.map((e) => e.index));
      for (const doc of docs.slice(last + 1)) {
        try {
          await this.ledger.insertOne(doc);
        } catch (insertError) {
          if (!isDuplicateKeyError(insertError)) throw insertError;
          stored.add(doc._id);
        }
      }
      return [...stored];
    }
  }

  async owners(eventIds: string[]): Promise<Map<string, string>> {
    if (eventIds.length === 0) return new Map();
    const docs = await this.ledger.find({ _id: { $in: eventIds } }, { projection: { _id: 1, batch: 1 } }).toArray();
    return new Map(docs.map((d) => [d._id, d.batch ?? '']));
  }

  /** One bulkWrite of guarded $inc upserts, then the rotation of the few guards that are full. */
  async applyDeltas(journal: BatchJournal): Promise<void> {
    const guard = (delta: BucketDelta) => ({ _id: bucketId(delta.organization, delta.bucket), applied: { $ne: journal.batch }, appliedPrev: { $ne: journal.batch } });
    const change = (delta: BucketDelta) => ({
      $inc: { tokensInput: delta.tokensInput, tokensOutput: delta.tokensOutput, costNanos: delta.costNanos, calls: delta.calls, appliedCount: 1 },
      $push: { applied: journal.batch },
    });
    const upsert = (delta: BucketDelta) => ({
      ...change(delta),
      $setOnInsert: { organization: delta.organization, kind: delta.bucket.kind, period: delta.bucket.period, key: delta.bucket.key },
    });
    const upserts: AnyBulkWriteOperation<BucketDoc>[] = journal.deltas.map((delta) => ({ updateOne: { filter: guard(delta), update: upsert(delta), upsert: true } }));
    try {
      await this.projection.bulkWrite(upserts, { ordered: false });
    } catch (error) {
      // A duplicate key: a bucket exists that lists the batch already (a re-application), or
      // another writer created it just now. FerretDB may stop at the first error whatever
      // `ordered` says, so the batch goes again bucket by bucket: upsert, else update without
      // upsert, where no match means the batch is already in.
      const failed = writeErrorsOf(error);
      if (!failed || failed.some((e) => !isDuplicateKeyError(e))) throw error;
      for (const delta of journal.deltas) {
        try {
          await this.projection.updateOne(guard(delta), upsert(delta), { upsert: true });
        } catch (retryError) {
          if (!isDuplicateKeyError(retryError)) throw retryError;
          await this.projection.updateOne(guard(delta), change(delta));
        }
      }
    }
    await this.rotateFull(journal.deltas.map((d) => bucketId(d.organization, d.bucket)));
  }

  async totals(organization: string, period: string): Promise<UsageTotals> {
    const doc = await this.projection.findOne({ _id: bucketId(organization, { kind: 'total', period, key: '' }) }, { projection: { applied: 0, appliedPrev: 0 } });
    return doc ? totalsOf(doc) : { ...ZERO_TOTALS };
  }

  async buckets(organization: string, period: string, kind: 'model' | 'endpoint'): Promise<KeyedTotals[]> {
    const docs = await this.projection.find({ organization, kind, period }, { projection: { applied: 0, appliedPrev: 0 } }).toArray();
    return docs.map((doc) => ({ key: doc.key, ...totalsOf(doc) }));
  }

  async daily(organization: string, fromDay: string, toDay: string): Promise<KeyedTotals[]> {
    const docs = await this.projection.find({ organization, kind: 'day', key: { $gte: fromDay, $lte: toDay } }, { projection: { applied: 0, appliedPrev: 0 } }).toArray();
    return docs.map((doc) => ({ key: doc.key, ...totalsOf(doc) }));
  }

  /**
   * Bounds the guards without $slice (FerretDB ignores it): a guard holding APPLIED_WINDOW ids
   * becomes `appliedPrev` and a new generation starts, so it covers the last APPLIED_WINDOW to
   * 2 x APPLIED_WINDOW batches. One query per batch finds the full ones (usually none).
   */
  private async rotateFull(ids: string[]): Promise<void> {
    const full = await this.projection.find({ _id: { $in: ids }, appliedCount: { $gte: this.window } }, { projection: { applied: 1 } }).toArray();
    for (const doc of full) {
      await this.projection.updateOne({ _id: doc._id, appliedCount: { $gte: this.window } }, { $set: { appliedPrev: doc.applied, applied: [], appliedCount: 0 } });
    }
  }
}

/** The per-document errors of a bulk insert or write (index into the operations), if that is what failed. */
function writeErrorsOf(error: unknown): Array<{ index: number; code?: number; message?: string }> | undefined {
  const errors = (error as { writeErrors?: unknown }).writeErrors;
  if (errors === undefined) return undefined;
  const list = (Array.isArray(errors) ? errors : [errors]) as Array<{ index: number; code?: number; errmsg?: string }>;
  return list.map((e) => ({ index: e.index, code: e.code, message: e.errmsg }));
}
