import type { Collection, Db } from 'mongodb';
import type { AnyEvent } from '../events/envelope';
import { isDuplicateKeyError } from './mongo';
import { nextOutboxSequence, type OutboxEntry, type OutboxStore } from './outbox-store';
import type { TraceCarrier } from '../tracing/propagation';

export const OUTBOX_COLLECTION = 'outbox';

interface OutboxDoc {
  /** The event id: a second add of the same event is a duplicate-key no-op. */
  _id: string;
  sequence: number;
  /** The event as JSON, so it is republished byte for byte as it was accepted. */
  event: string;
  storedAt: string;
  /** W3C trace context of the publish (traceparent, tracestate), when tracing was on. */
  trace?: TraceCarrier;
}

/**
 * Durable outbox in the service's own database (collection `outbox`). Only unique-id inserts,
 * ordered reads and deletes by id.
 */
export class MongoOutboxStore implements OutboxStore {
  private readonly collection: Collection<OutboxDoc>;

  constructor(db: Db) {
    this.collection = db.collection<OutboxDoc>(OUTBOX_COLLECTION);
  }

  /** Creates the read-order index (idempotent); call once at start. */
  async ensureIndexes(): Promise<void> {
    await this.collection.createIndex({ sequence: 1 }, { name: 'outbox_order' });
  }

  async add(event: AnyEvent, trace?: TraceCarrier): Promise<void> {
    const doc: OutboxDoc = {
      _id: event.id,
      sequence: nextOutboxSequence(),
      event: JSON.stringify(event),
      storedAt: new Date().toISOString(),
    };
    if (trace) doc.trace = trace;
    try {
      await this.collection.insertOne(doc);
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
    }
  }

  async oldest(limit: number): Promise<OutboxEntry[]> {
    const docs = await this.collection
      .find({})
      .sort({ sequence: 1, _id: 1 })
      .limit(limit)
      .toArray();
    return docs.map((doc) => {
      const event = JSON.parse(doc.event) as AnyEvent;
      return doc.trace ? { event, trace: doc.trace } : { event };
    });
  }

  async remove(eventId: string): Promise<void> {
    await this.collection.deleteOne({ _id: eventId });
  }

  async count(): Promise<number> {
    return this.collection.countDocuments({});
  }
}
