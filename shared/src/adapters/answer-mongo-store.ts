import type { Collection, Db } from 'mongodb';
import { answerId, type AnswerStore } from './answer-store';
import { ensureExpiryIndex, isDuplicateKeyError } from './mongo';

export const ANSWERS_COLLECTION = 'answers';

interface AnswerDoc {
  /** answerId(organization, key): the first insert wins, a second is a duplicate key. */
  _id: string;
  organization: string;
  answer: string;
  expiresAt: Date;
}

/**
 * The answer store in the service's own database (collection `answers`): inserts by unique id,
 * reads by id, expired answers removed by a TTL index on `expiresAt`. Reads check the expiry
 * themselves (the TTL monitor runs about once a minute).
 */
export class MongoAnswerStore implements AnswerStore {
  private readonly collection: Collection<AnswerDoc>;

  constructor(db: Db) {
    this.collection = db.collection<AnswerDoc>(ANSWERS_COLLECTION);
  }

  async ensureIndexes(): Promise<void> {
    await ensureExpiryIndex(this.collection, 'expiresAt', 'answers_expiry');
  }

  async get(organization: string, key: string): Promise<string | undefined> {
    const doc = await this.collection.findOne({ _id: answerId(organization, key) });
    return doc && doc.organization === organization && doc.expiresAt.getTime() > Date.now()
      ? doc.answer
      : undefined;
  }

  async put(
    organization: string,
    key: string,
    answer: string,
    ttlSeconds: number,
  ): Promise<string> {
    const _id = answerId(organization, key);
    const expiresAt = new Date(Date.now() + ttlSeconds * 1000);
    try {
      await this.collection.insertOne({ _id, organization, answer, expiresAt });
      return answer;
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
    }
    const kept = await this.collection.findOne({ _id });
    if (kept && kept.expiresAt.getTime() > Date.now()) return kept.answer;
    // An expired answer the TTL monitor has not removed yet: this one replaces it.
    await this.collection.replaceOne({ _id }, { organization, answer, expiresAt });
    return answer;
  }
}
