import type { Db } from 'mongodb';
import type { ProcessedEvents } from '../processed-events';
import { Collections, insertIgnoringDuplicate } from './collections';

interface ProcessedEventDoc {
  organization: string;
  eventId: string;
  processedAt: string;
}

/** Handled event ids (unique per organization and event id). */
export class MongoProcessedEvents implements ProcessedEvents {
  private readonly collection;

  constructor(db: Db) {
    this.collection = db.collection<ProcessedEventDoc>(Collections.processedEvents);
  }

  async has(organization: string, eventId: string): Promise<boolean> {
    return (await this.collection.findOne({ organization, eventId }, { projection: { _id: 1 } })) !== null;
  }

  async mark(organization: string, eventId: string): Promise<void> {
    await insertIgnoringDuplicate(() => this.collection.insertOne({ organization, eventId, processedAt: new Date().toISOString() }));
  }
}
