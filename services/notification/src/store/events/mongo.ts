import type { Db, Filter } from 'mongodb';
import { Collections } from '../collections';
import {
  eventRecordKey,
  typeRange,
  type EventFilter,
  type EventRecord,
  type EventStore,
} from './port';

interface EventDoc extends EventRecord {
  /** (organization, event id). */
  _id: string;
  /** Removed then (a TTL index, see ensureIndexes): received time plus the retention. */
  expiresAt: Date;
}

export class MongoEventStore implements EventStore {
  private readonly collection;

  constructor(
    db: Db,
    private readonly retentionMs: number,
  ) {
    this.collection = db.collection<EventDoc>(Collections.events);
  }

  async record(events: EventRecord[]): Promise<void> {
    if (events.length === 0) return;
    await this.collection.bulkWrite(
      events.map((event) => ({
        updateOne: {
          filter: { _id: eventRecordKey(event.organization, event.id) },
          update: {
            $setOnInsert: {
              ...event,
              expiresAt: new Date(Date.parse(event.receivedAt) + this.retentionMs),
            },
          },
          upsert: true,
        },
      })),
      { ordered: false },
    );
  }

  async get(organization: string, id: string): Promise<EventRecord | undefined> {
    const doc = await this.collection.findOne({ _id: eventRecordKey(organization, id) });
    return doc && this.kept(doc) ? recordOf(doc) : undefined;
  }

  async list(organization: string, filter: EventFilter): Promise<EventRecord[]> {
    // Also the expired ones the TTL monitor (about once a minute) has not removed yet.
    const query: Filter<EventDoc> = { organization, expiresAt: { $gt: new Date() } };
    if (filter.type !== undefined) {
      const range = typeRange(filter.type);
      query.type = (
        'exact' in range ? range.exact : { $gte: range.from, $lt: range.to }
      ) as Filter<EventDoc>['type'];
    }
    if (filter.key !== undefined) query.key = filter.key;
    if (filter.since || filter.until)
      query.receivedAt = {
        ...(filter.since && { $gte: filter.since }),
        ...(filter.until && { $lt: filter.until }),
      };
    if (filter.after)
      query.$or = [
        { receivedAt: { $lt: filter.after.receivedAt } },
        { receivedAt: filter.after.receivedAt, id: { $lt: filter.after.id } },
      ];
    const docs = await this.collection
      .find(query)
      .sort({ receivedAt: -1, id: -1 })
      .limit(filter.limit)
      .toArray();
    return docs.map(recordOf);
  }

  private kept(doc: EventDoc): boolean {
    return doc.expiresAt.getTime() > Date.now();
  }
}

function recordOf({ _id, expiresAt: _expiresAt, ...record }: EventDoc): EventRecord {
  return record;
}
