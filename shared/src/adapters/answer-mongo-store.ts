import type { Collection, Db } from 'mongodb';
import { answerId, type AnswerStore } from './answer-store';
import { isDuplicateKeyError } from './mongo';

export const ANSWERS_COLLECTION = 'answers';

interface AnswerDoc {
  /** answerId(organization, key): the first insert wins, a second is a duplicate key. */
  _id: string;
  organization: string;
  answer: string;
  expiresAt: Date;
}

/** How often a store removes answers whose window passed (FerretDB has no TTL indexes). */
const SWEEP_INTERVAL_MS = 60_000;

/**
 * The answer store in the service's own database (collection `answers`): inserts by unique id,
 * reads by id, and expired answers removed by an indexed delete at most once a minute per store
 * (TTL indexes are not available on FerretDB). Reads check the expiry themselves.
 */
export class MongoAnswerStore implements AnswerStore {
  private readonly collection: Collection<AnswerDoc>;
  private lastSweep = 0;

  constructor(db: Db) {
    this.collection = db.collection<AnswerDoc>(ANSWERS_COLLECTION);
  }

  async ensureIndexes(): Promise<void> {
    await this.collection.createIndex({ expiresAt: 1 }, { name: 'answers_expiry' });
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
    this.sweep();
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

  /** Best effort in the background: a failed sweep is retried by a later put. */
  private sweep(): void {
    if (Date.now() - this.lastSweep < SWEEP_INTERVAL_MS) return;
    this.lastSweep = Date.now();
    this.collection
      .deleteMany({ expiresAt: { $lte: new Date() } })
      .catch(() => (this.lastSweep = 0));
  }
}
