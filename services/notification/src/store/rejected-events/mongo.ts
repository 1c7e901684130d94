import type { Db } from 'mongodb';
import { Collections } from '../collections';
import { rejectedEventKey, type RejectedEvent, type RejectedEventStore } from './port';

/** How long a rejection is kept: Kafka's default retention, past which no event is handled again. */
export const REJECTION_KEPT_MS = 7 * 24 * 3600_000;

interface RejectedEventDoc extends RejectedEvent {
  /** (organization, event id). */
  _id: string;
  /** Removed then (a TTL index, see ensureIndexes). */
  expiresAt: Date;
}

export class MongoRejectedEventStore implements RejectedEventStore {
  private readonly collection;

  constructor(db: Db) {
    this.collection = db.collection<RejectedEventDoc>(Collections.rejectedEvents);
  }

  async recorded(
    events: Array<Pick<RejectedEvent, 'organization' | 'eventId'>>,
  ): Promise<Set<string>> {
    if (events.length === 0) return new Set();
    const ids = events.map((e) => rejectedEventKey(e.organization, e.eventId));
    const docs = await this.collection
      .find({ _id: { $in: ids } }, { projection: { _id: 1 } })
      .toArray();
    return new Set(docs.map((doc) => doc._id));
  }

  async record(events: RejectedEvent[]): Promise<void> {
    if (events.length === 0) return;
    const expiresAt = new Date(Date.now() + REJECTION_KEPT_MS);
    await this.collection.bulkWrite(
      events.map((event) => ({
        updateOne: {
          filter: { _id: rejectedEventKey(event.organization, event.eventId) },
          update: { $setOnInsert: { ...event, expiresAt } },
          upsert: true,
        },
      })),
      { ordered: false },
    );
  }
}
