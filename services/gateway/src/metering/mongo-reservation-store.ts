import { isDuplicateKeyError } from '@switchyard/shared';
import type { Collection, Db } from 'mongodb';
import type { QuotaReservation, ReservationStore } from './reservation-store';

export const RESERVATIONS_COLLECTION = 'quota_reservations';

interface ReservationDoc {
  _id: string;
  organization: string;
  period: string;
  tokens: number;
}

/**
 * Reservations in the gateway's database, one document per call: each has a single writer (the
 * request that made it), so no update ever races another (FerretDB does not isolate concurrent
 * updates of one document). The total is an indexed sum, read only to rebuild a lost counter.
 */
export class MongoReservationStore implements ReservationStore {
  private readonly collection: Collection<ReservationDoc>;

  constructor(db: Db) {
    this.collection = db.collection<ReservationDoc>(RESERVATIONS_COLLECTION);
  }

  async ensureIndexes(): Promise<void> {
    await this.collection.createIndex({ organization: 1, period: 1 }, { name: 'organization_period' });
  }

  async add({ id, organization, period, tokens }: QuotaReservation): Promise<void> {
    try {
      await this.collection.insertOne({ _id: id, organization, period, tokens });
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
    }
  }

  async settle(id: string, tokens: number): Promise<void> {
    await this.collection.updateOne({ _id: id }, { $set: { tokens } });
  }

  async remove(id: string): Promise<void> {
    await this.collection.deleteOne({ _id: id });
  }

  async total(organization: string, period: string): Promise<number> {
    const [sum] = await this.collection
      .aggregate<{ tokens: number }>([{ $match: { organization, period } }, { $group: { _id: null, tokens: { $sum: '$tokens' } } }])
      .toArray();
    return sum?.tokens ?? 0;
  }
}
