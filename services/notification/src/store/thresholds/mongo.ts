import { isDuplicateKeyError } from '@switchyard/shared';
import type { Db } from 'mongodb';
import { thresholdKey, type ThresholdRecord, type ThresholdStore } from './port';
import { Collections } from '../collections';

interface ThresholdDoc extends ThresholdRecord {
  /** (organization, period, share): the unique insert that lets only the first crossing in. */
  _id: string;
}

export class MongoThresholdStore implements ThresholdStore {
  private readonly collection;

  constructor(db: Db) {
    this.collection = db.collection<ThresholdDoc>(Collections.usageThresholds);
  }

  async claim(record: ThresholdRecord): Promise<ThresholdRecord> {
    const _id = thresholdKey(record.organization, record.period, record.share);
    try {
      await this.collection.insertOne({ _id, ...record });
      return { ...record };
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
    }
    const stored = await this.collection.findOne({ _id });
    if (!stored) throw new Error(`usage threshold ${_id} vanished`);
    return recordOf(stored);
  }

  async markNotified(organization: string, period: string, share: number): Promise<void> {
    await this.collection.updateOne(
      { _id: thresholdKey(organization, period, share) },
      { $set: { notified: true } },
    );
  }

  async list(organization: string, period: string): Promise<ThresholdRecord[]> {
    return (await this.collection.find({ organization, period }).toArray()).map(recordOf);
  }
}

function recordOf(doc: ThresholdDoc): ThresholdRecord {
  const { _id, ...record } = doc;
  return record;
}
