import { isDuplicateKeyError } from '@switchyard/shared';
import { MongoBulkWriteError, type Db, type Document } from 'mongodb';
import { DELIVERY_STATES, type DeliveryRecord, type DeliveryState } from '../../model';
import type {
  AttemptResult,
  AttemptToRecord,
  DeliveryCounts,
  DeliveryFilter,
  DeliveryStore,
  PendingDelivery,
} from './port';
import { Collections, withoutId } from '../collections';

/** _id is the delivery id. Logs from before the due queue also hold a lease (leaseUntil, leaseOwner) and a dedupeKey. */
type StoredDelivery = DeliveryRecord & {
  _id: string;
  leaseUntil?: string;
  leaseOwner?: string;
  dedupeKey?: string;
};

/** Deliveries per insert command; larger batches go in several, a few at a time. */
const INSERT_CHUNK = 500;
const INSERTS_IN_FLIGHT = 4;

function toRecord(doc: Document | null | undefined): DeliveryRecord | undefined {
  const stored = withoutId<StoredDelivery>(doc as StoredDelivery | null);
  if (!stored) return undefined;
  const { leaseUntil: _lease, leaseOwner: _owner, dedupeKey: _key, ...record } = stored;
  return record;
}

/**
 * Throws unless every insert of the batch is accounted for: stored, or refused as a duplicate (a
 * delivery logged before). A bulk error without write errors is the whole command failing (a
 * connection dropped as the server stopped): nothing is known to be stored.
 */
function ignoreDuplicates(error: unknown, size: number): void {
  if (error instanceof MongoBulkWriteError) {
    const errors = [error.writeErrors].flat();
    const allDuplicates = errors.every(
      (e) => e.code === 11000 || isDuplicateKeyError(e.errmsg ? { message: e.errmsg } : e),
    );
    if (errors.length > 0 && allDuplicates && error.insertedCount + errors.length === size) return;
  }
  if (size === 1 && isDuplicateKeyError(error)) return;
  throw error;
}

/** Runs work over chunks, at most `parallel` at a time; rejects with the first failure after all settled. */
async function eachChunk<T>(
  items: T[],
  size: number,
  parallel: number,
  work: (chunk: T[]) => Promise<void>,
): Promise<void> {
  const chunks: T[][] = [];
  for (let i = 0; i < items.length; i += size) chunks.push(items.slice(i, i + size));
  let next = 0;
  const failures: unknown[] = [];
  const worker = async () => {
    while (next < chunks.length)
      await work(chunks[next++]!).catch((error: unknown) => void failures.push(error));
  };
  await Promise.all(Array.from({ length: Math.min(parallel, chunks.length) }, worker));
  if (failures.length > 0) throw failures[0];
}

/**
 * The delivery log in MongoDB. A delivery's _id is its id, derived from its event and target, so
 * an event handled twice (by a replica that took over a partition) logs its deliveries once. A
 * delivery is inserted with its first attempt: in the common case one document write per
 * delivery, in batches; only further attempts update it.
 */
export class MongoDeliveryStore implements DeliveryStore {
  private readonly deliveries;

  constructor(db: Db) {
    this.deliveries = db.collection<StoredDelivery>(Collections.deliveries);
  }

  async insert(records: DeliveryRecord[]): Promise<void> {
    await eachChunk(records, INSERT_CHUNK, INSERTS_IN_FLIGHT, async (chunk) => {
      const docs = chunk.map((record) => ({ ...record, _id: record.id }));
      await this.deliveries
        .insertMany(docs, { ordered: false })
        .catch((error: unknown) => ignoreDuplicates(error, docs.length));
    });
  }

  async get(organization: string, id: string): Promise<DeliveryRecord | undefined> {
    return toRecord(await this.deliveries.findOne({ _id: id, organization }));
  }

  async getMany(ids: string[]): Promise<DeliveryRecord[]> {
    if (ids.length === 0) return [];
    const docs = await this.deliveries.find({ _id: { $in: ids } }).toArray();
    return docs.map((doc) => toRecord(doc)!);
  }

  async list(organization: string, options: DeliveryFilter): Promise<DeliveryRecord[]> {
    const filter: Document = { organization };
    if (options.webhookId) filter.webhookId = options.webhookId;
    if (options.eventId) filter.eventId = options.eventId;
    if (options.status) filter.status = options.status;
    if (options.event) filter.event = options.event;
    if (options.state) Object.assign(filter, stateFilter(options.state));
    Object.assign(filter, createdWithin(options));
    const docs = await this.deliveries
      .find(filter)
      .sort({ createdAt: -1, _id: -1 })
      .limit(options.limit)
      .toArray();
    return docs.map((doc) => toRecord(doc)!);
  }

  async recordAttempts(attempts: AttemptToRecord[]): Promise<void> {
    if (attempts.length === 0) return;
    // One update per delivery by _id (an $in filter is not served by FerretDB's _id index).
    const written = await this.deliveries.bulkWrite(
      attempts.map(({ organization, id, result }) => ({
        updateOne: {
          filter: { _id: id, organization, status: 'pending' },
          update: attemptUpdate(result),
        },
      })),
      { ordered: false },
    );
    if (written.matchedCount === attempts.length) return;
    // Some were no longer pending (cancelled, or finished by another replica): appended once.
    await this.deliveries.bulkWrite(
      attempts.map(({ organization, id, result }) => ({
        updateOne: {
          filter: { _id: id, organization, status: { $ne: 'pending' } },
          update: {
            // $addToSet: an attempt already appended (by the first write, which raced) is not again.
            $addToSet: { attempts: result.attempt },
            ...(result.status === 'succeeded' && { $set: { status: 'succeeded' } }),
          },
        },
      })),
      { ordered: false },
    );
  }

  async cancel(organization: string, id: string, at: string): Promise<DeliveryRecord | undefined> {
    const cancelled = await this.deliveries.findOneAndUpdate(
      { _id: id, organization, status: 'pending' },
      { $set: { status: 'failed', cancelledAt: at }, $unset: { nextAttemptAt: '' } },
      { returnDocument: 'after' },
    );
    return toRecord(cancelled) ?? this.get(organization, id);
  }

  async count(
    organization: string,
    webhookId: string,
    window: { since?: string; until?: string },
  ): Promise<DeliveryCounts> {
    const base = { organization, webhookId, ...createdWithin(window) };
    const counts = await Promise.all(
      DELIVERY_STATES.map((state) =>
        this.deliveries.countDocuments({ ...base, ...stateFilter(state) }),
      ),
    );
    return Object.fromEntries(DELIVERY_STATES.map((s, i) => [s, counts[i]])) as DeliveryCounts;
  }

  async pending(after: string, limit: number): Promise<PendingDelivery[]> {
    const docs = await this.deliveries
      .find(
        { status: 'pending', _id: { $gt: after } },
        { projection: { _id: 1, url: 1, nextAttemptAt: 1, lane: 1, createdAt: 1 } },
      )
      .sort({ _id: 1 })
      .limit(limit)
      .toArray();
    return docs.map((doc) => ({
      id: doc._id,
      url: doc.url,
      nextAttemptAt: doc.nextAttemptAt,
      createdAt: doc.createdAt,
      ...(doc.lane && { lane: doc.lane }),
    }));
  }
}

/** The deliveries in a state (see deliveryState). */
function stateFilter(state: DeliveryState): Document {
  switch (state) {
    case 'pending':
      return { status: 'pending', 'attempts.0': { $exists: false } };
    case 'failing':
      return { status: 'pending', 'attempts.0': { $exists: true } };
    case 'failed':
      return { status: 'failed', cancelledAt: { $exists: false } };
    case 'cancelled':
      return { status: 'failed', cancelledAt: { $exists: true } };
    case 'succeeded':
      return { status: 'succeeded' };
  }
}

function createdWithin(window: { since?: string; until?: string }): Document {
  if (!window.since && !window.until) return {};
  return {
    createdAt: {
      ...(window.since && { $gte: window.since }),
      ...(window.until && { $lt: window.until }),
    },
  };
}

/** Appends the attempt, sets the new status and next attempt time (a lease of old logs goes). */
function attemptUpdate(result: AttemptResult): Document {
  const set: Document = { status: result.status, url: result.url };
  const unset: Document = { leaseUntil: '', leaseOwner: '' };
  if (result.nextAttemptAt) set.nextAttemptAt = result.nextAttemptAt;
  else unset.nextAttemptAt = '';
  return { $push: { attempts: result.attempt }, $set: set, $unset: unset };
}
