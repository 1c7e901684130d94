import { connectMongo, type Logger } from '@switchyard/shared';
import type { AssistantConfig } from '../config';
import { MongoSessionStore } from './mongo-session-store';
import { InMemorySessionStore, type SessionStore } from './session-store';

export interface AssistantStores {
  sessions: SessionStore;
  /** Closes the database connection. */
  close(): Promise<void>;
}

/** MongoDB stores when MONGODB_URI is set (indexes created here), else in-memory ones. */
export async function createStores(config: AssistantConfig, logger: Logger): Promise<AssistantStores> {
  if (!config.mongodbUri) {
    logger.warn('MONGODB_URI is not set: sessions are kept in memory and lost on restart');
    const sessions = new InMemorySessionStore();
    return { sessions, close: () => sessions.close() };
  }
  const mongo = await connectMongo(config.mongodbUri, config.mongodbDatabase, logger);
  try {
    const sessions = new MongoSessionStore(mongo.db);
    await sessions.ensureIndexes();
    return { sessions, close: () => mongo.close() };
  } catch (error) {
    await mongo.close();
    throw error;
  }
}
