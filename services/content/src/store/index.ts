import {
  connectMongo,
  InMemoryAnswerStore,
  InMemoryOutboxStore,
  MongoAnswerStore,
  MongoOutboxStore,
  type AnswerStore,
  type Logger,
  type OpenedStores,
  type OutboxStore,
} from '@switchyard/shared';
import type { ContentConfig } from '../config';
import { InMemoryRequestStore } from './requests/memory';
import { MongoRequestStore } from './requests/mongo';
import type { LeaseOptions, RequestStore } from './requests/port';

export interface ContentStores {
  requestStore: RequestStore;
  /** Events the bus refused, kept until relayed (collection `outbox` of this service's database). */
  outbox: OutboxStore;
  /** Answers of finished billable calls, for retries after a lost answer (collection `answers`). */
  answers: AnswerStore;
}

/** Stores in this process: what a test or the embedded mesh runs on (lost on restart). */
export function inMemoryStores(lease: LeaseOptions): ContentStores {
  return {
    requestStore: new InMemoryRequestStore(lease),
    outbox: new InMemoryOutboxStore(),
    answers: new InMemoryAnswerStore(),
  };
}

/** MongoDB stores when MONGODB_URI is set (indexes created here), else in-memory ones. */
export async function createStores(
  config: ContentConfig,
  logger: Logger,
): Promise<OpenedStores<ContentStores>> {
  const lease: LeaseOptions = { owner: config.instanceId, leaseMs: config.requestLeaseMs };
  if (!config.mongodbUri) {
    logger.warn('MONGODB_URI is not set: async requests are kept in memory and lost on restart');
    const stores = inMemoryStores(lease);
    return { stores, close: () => stores.requestStore.close() };
  }
  const mongo = await connectMongo(config.mongodbUri, config.mongodbDatabase, logger);
  try {
    const requestStore = new MongoRequestStore(mongo.db, lease);
    await requestStore.ensureIndexes();
    const outbox = new MongoOutboxStore(mongo.db);
    await outbox.ensureIndexes();
    const answers = new MongoAnswerStore(mongo.db);
    await answers.ensureIndexes();
    return { stores: { requestStore, outbox, answers }, close: () => mongo.close() };
  } catch (error) {
    await mongo.close();
    throw error;
  }
}

export * from './requests/port';
export { InMemoryRequestStore } from './requests/memory';
export {
  MongoRequestStore,
  LEASES_COLLECTION,
  REQUESTS_COLLECTION,
  requestKey,
} from './requests/mongo';
