import { isDuplicateKeyError } from '@switchyard/shared';
import type { AnyBulkWriteOperation, Db } from 'mongodb';
import { bucketId, ZERO_TOTALS, type BucketDelta, type BucketKind, type KeyedTotals, type UsageEntry, type UsageTotals } from '../../usage/usage-entry';
import { APPLIED_WINDOW, totalsOf, type BatchJournal, type StoredEntry, type UsageLedgerStore } from '../usage-ledger-store';
import { Collections } from './collections';

interface LedgerDoc extends UsageEntry {
  /** The event id: the unique insert that makes an event count once. */
  _id: string;
  applied: boolean;
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
 * The ledger on MongoDB/FerretDB without transactions, a handful of round trips per batch
 * whatever its size, each served by an index: lookup, adopt and finish by _id ($in), the
 * journal by _id, one bulkWrite of upserts by bucket _id, unapplied() by {applied, appendedAt}.
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

  async lookup(eventIds: string[]): Promise<StoredEntry[]> {
    if (eventIds.length === 0) return [];
    return (await this.ledger.find({ _id: { $in: eventIds } }).toArray()).map(storedOf);
  }

  async append(batch: string, entries: UsageEntry[]): Promise<Set<string>> {
    if (entries.length === 0) return new Set();
    const appendedAt = new Date().toISOString();
    const docs = entries.map((entry) => ({ _id: entry.eventId, ...entry, applied: false, batch, appendedAt }));
    const inserted = new Set(docs.map((d) => d._id));
    try {
      await this.ledger.insertMany(docs, { ordered: false });
    } catch (error) {
      // Ids stored meanwhile (another writer) are not this batch's; anything else is a failure.
      const failed = writeErrorsOf(error);
      if (!failed || failed.some((e) => !isDuplicateKeyError(e))) throw error;
      for (const e of failed) inserted.delete(docs[e.index]!._id);
    }
    return inserted;
  }

  async adopt(batch: string, eventIds: string[]): Promise<string[]> {
    if (eventIds.length === 0) return [];
    const result = await this.ledger.updateMany({ _id: { $in: eventIds }, applied: false }, { $set: { batch } });
    if (result.modifiedCount === eventIds.length) return eventIds;
    return (await this.ledger.find({ _id: { $in: eventIds }, batch, applied: false }, { projection: { _id: 1 } }).toArray()).map((d) => d._id);
  }

  async writeJournal(journal: BatchJournal): Promise<void> {
    await this.journal.insertOne({ _id: journal.batch, eventIds: journal.eventIds, deltas: journal.deltas, writtenAt: new Date().toISOString() });
  }

  async journals(batches: string[]): Promise<BatchJournal[]> {
    if (batches.length === 0) return [];
    const docs = await this.journal.find({ _id: { $in: batches } }).toArray();
    return docs.map((d) => ({ batch: d._id, eventIds: d.eventIds, deltas: d.deltas }));
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

  async finish(journal: BatchJournal): Promise<void> {
    await this.ledger.updateMany({ _id: { $in: journal.eventIds } }, { $set: { applied: true } });
    await this.journal.deleteOne({ _id: journal.batch });
  }

  async unapplied(appendedBefore: string, limit: number): Promise<StoredEntry[]> {
    const docs = await this.ledger.find({ applied: false, appendedAt: { $lt: appendedBefore } }).sort({ appendedAt: 1 }).limit(limit).toArray();
    return docs.map(storedOf);
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

function storedOf(doc: LedgerDoc): StoredEntry {
  const entry: UsageEntry = {
    eventId: doc.eventId,
    organization: doc.organization,
    period: doc.period,
    day: doc.day,
    model: doc.model,
    endpoint: doc.endpoint,
    tokensInput: doc.tokensInput,
    tokensOutput: doc.tokensOutput,
    costNanos: doc.costNanos,
    occurredAt: doc.occurredAt,
  };
  return { entry, applied: doc.applied, ...(doc.batch ? { batch: doc.batch } : {}) };
}
