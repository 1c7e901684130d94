import type { Db } from 'mongodb';
import type { UsageStore } from '../usage-store';
import { Collections } from './collections';
import { insertIgnoringDuplicate } from './processed-events';

interface UsageTotalDoc {
  organization: string;
  period: string;
  total: number;
}

interface UsageEventDoc {
  organization: string;
  period: string;
  eventId: string;
  tokens: number;
}

interface ThresholdDoc {
  organization: string;
  period: string;
  share: number;
  notifiedAt: string;
}

/**
 * Monthly totals. The unique (organization, period, event id) insert decides whether an event
 * counts, then the total is incremented. Without transactions a crash between the two writes
 * under-counts that one event (never double-counts). The increment relies on one consumer per
 * organization at a time (Kafka keys by organization), as FerretDB's $inc is not atomic across
 * concurrent writers.
 */
export class MongoUsageStore implements UsageStore {
  private readonly totals;
  private readonly events;
  private readonly thresholds;

  constructor(db: Db) {
    this.totals = db.collection<UsageTotalDoc>(Collections.usageTotals);
    this.events = db.collection<UsageEventDoc>(Collections.usageEvents);
    this.thresholds = db.collection<ThresholdDoc>(Collections.usageThresholds);
  }

  async add(organization: string, period: string, eventId: string, tokens: number): Promise<{ total: number; counted: boolean }> {
    const counted = await insertIgnoringDuplicate(() => this.events.insertOne({ organization, period, eventId, tokens }));
    if (counted) await this.totals.updateOne({ organization, period }, { $inc: { total: tokens } }, { upsert: true });
    return { total: await this.total(organization, period), counted };
  }

  async total(organization: string, period: string): Promise<number> {
    return (await this.totals.findOne({ organization, period }))?.total ?? 0;
  }

  async notifiedShares(organization: string, period: string): Promise<number[]> {
    const docs = await this.thresholds.find({ organization, period }).toArray();
    return docs.map((doc) => doc.share);
  }

  async markNotified(organization: string, period: string, share: number): Promise<void> {
    await insertIgnoringDuplicate(() => this.thresholds.insertOne({ organization, period, share, notifiedAt: new Date().toISOString() }));
  }
}
