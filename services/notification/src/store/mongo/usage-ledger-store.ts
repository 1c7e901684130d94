import { isDuplicateKeyError } from '@switchyard/shared';
import type { Db, UpdateFilter } from 'mongodb';
import { bucketId, bucketsOf, ZERO_TOTALS, type BucketKind, type BucketRef, type KeyedTotals, type UsageEntry, type UsageTotals } from '../../usage/usage-entry';
import { APPLIED_WINDOW, totalsOf, type UsageLedgerStore } from '../usage-ledger-store';
import { Collections } from './collections';

interface LedgerDoc extends UsageEntry {
  /** The event id: the unique insert that makes an event count once. */
  _id: string;
  applied: boolean;
  appendedAt: string;
}

interface BucketDoc extends UsageTotals {
  _id: string;
  organization: string;
  kind: BucketKind;
  period: string;
  key: string;
  /** Event ids added to this bucket since the last rotation: the per-bucket guard, with appliedPrev. */
  applied: string[];
  appliedCount: number;
  /** The previous generation of ids (so the guard always covers the last APPLIED_WINDOW ids at least). */
  appliedPrev?: string[];
}

/**
 * The ledger on MongoDB/FerretDB without transactions. The ledger insert (unique _id) is the one
 * atomic decision; each bucket update is guarded by `applied: {$ne: eventId}`, so re-projecting
 * an entry only touches the buckets a crash left out. The guard is not atomic on FerretDB under
 * truly concurrent writers of the same event, which only happens during a Kafka rebalance (one
 * consumer per organization otherwise) or if the sweeper raced the consumer (it only takes
 * entries older than its staleness delay).
 */
export class MongoUsageLedgerStore implements UsageLedgerStore {
  private readonly ledger;
  private readonly projection;

  /** window: guard size (APPLIED_WINDOW; smaller in tests). */
  constructor(db: Db, private readonly window = APPLIED_WINDOW) {
    this.ledger = db.collection<LedgerDoc>(Collections.usageLedger);
    this.projection = db.collection<BucketDoc>(Collections.usageProjection);
  }

  async append(entry: UsageEntry): Promise<{ entry: UsageEntry; applied: boolean }> {
    try {
      await this.ledger.insertOne({ _id: entry.eventId, ...entry, applied: false, appendedAt: new Date().toISOString() });
      return { entry, applied: false };
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
    }
    const stored = await this.ledger.findOne({ _id: entry.eventId });
    if (!stored) throw new Error(`usage ledger entry ${entry.eventId} vanished`);
    return { entry: entryOf(stored), applied: stored.applied };
  }

  async project(entry: UsageEntry): Promise<void> {
    await Promise.all(bucketsOf(entry).map((ref) => this.addToBucket(entry, ref)));
  }

  async markApplied(eventId: string): Promise<void> {
    await this.ledger.updateOne({ _id: eventId }, { $set: { applied: true } });
  }

  async unapplied(appendedBefore: string, limit: number): Promise<UsageEntry[]> {
    const docs = await this.ledger.find({ applied: false, appendedAt: { $lt: appendedBefore } }).sort({ appendedAt: 1 }).limit(limit).toArray();
    return docs.map(entryOf);
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

  /** $inc guarded by the bucket's applied ids; the upsert creates the bucket on first use. */
  private async addToBucket(entry: UsageEntry, ref: BucketRef): Promise<void> {
    const _id = bucketId(entry.organization, ref);
    const filter = { _id, applied: { $ne: entry.eventId }, appliedPrev: { $ne: entry.eventId } };
    const change: UpdateFilter<BucketDoc> = {
      $inc: { tokensInput: entry.tokensInput, tokensOutput: entry.tokensOutput, costNanos: entry.costNanos, calls: 1, appliedCount: 1 },
      $push: { applied: entry.eventId },
    };
    try {
      await this.projection.updateOne(filter, { ...change, $setOnInsert: { organization: entry.organization, kind: ref.kind, period: ref.period, key: ref.key } }, { upsert: true });
    } catch (error) {
      // The bucket exists (it already lists the event, or another writer created it just now):
      // apply to it without upsert; no match means the event is already in.
      if (!isDuplicateKeyError(error)) throw error;
      await this.projection.updateOne(filter, change);
    }
    await this.rotateIfFull(_id);
  }

  /**
   * Bounds the guard without $slice (FerretDB ignores it): once `applied` holds APPLIED_WINDOW ids
   * it becomes `appliedPrev` and a new generation starts, so the guard covers the last
   * APPLIED_WINDOW to 2 x APPLIED_WINDOW ids. Relies on one writer per organization at a time.
   */
  private async rotateIfFull(_id: string): Promise<void> {
    const counted = await this.projection.findOne({ _id }, { projection: { appliedCount: 1 } });
    if (!counted || counted.appliedCount < this.window) return;
    const full = await this.projection.findOne({ _id }, { projection: { applied: 1 } });
    if (!full) return;
    await this.projection.updateOne({ _id, appliedCount: { $gte: this.window } }, { $set: { appliedPrev: full.applied, applied: [], appliedCount: 0 } });
  }
}

function entryOf(doc: LedgerDoc): UsageEntry {
  return {
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
}
