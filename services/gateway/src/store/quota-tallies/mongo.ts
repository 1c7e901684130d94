import { bulkWriteSkippingDuplicates } from '@switchyard/shared';
import type { Collection, Db } from 'mongodb';
import { tallyId, type QuotaTallyStore, type TallyDelta } from './port';

export const QUOTA_TALLIES_COLLECTION = 'quota_tallies';

interface TallyDoc {
  _id: string;
  writer: string;
  organization: string;
  period: string;
  tokens: number;
  /** The last batch applied: a retried batch matches nothing and its upsert hits the _id. */
  batch: string;
}

/** Tallies in the gateway's database: one upsert with $inc per tally in a batch, in one bulkWrite. */
export class MongoQuotaTallyStore implements QuotaTallyStore {
  private readonly collection: Collection<TallyDoc>;

  constructor(db: Db) {
    this.collection = db.collection<TallyDoc>(QUOTA_TALLIES_COLLECTION);
  }

  async add(writer: string, batch: string, deltas: TallyDelta[]): Promise<void> {
    if (deltas.length === 0) return;
    const operations = deltas.map(({ organization, period, tokens }) => ({
      updateOne: {
        filter: { _id: tallyId(writer, organization, period), batch: { $ne: batch } },
        update: {
          $inc: { tokens },
          $set: { batch },
          $setOnInsert: { writer, organization, period },
        },
        upsert: true,
      },
    }));
    // A duplicate is a tally this batch already reached (that part is applied); anything else fails the batch.
    await bulkWriteSkippingDuplicates(this.collection, operations);
  }

  async total(organization: string, period: string): Promise<number> {
    const [sum] = await this.collection
      .aggregate<{ tokens: number }>([
        { $match: { organization, period } },
        { $group: { _id: null, tokens: { $sum: '$tokens' } } },
      ])
      .toArray();
    return sum?.tokens ?? 0;
  }
}
