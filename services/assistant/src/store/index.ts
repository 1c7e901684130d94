import { connectMongo, InMemoryOutboxStore, MongoOutboxStore, type Logger, type OutboxStore } from '@switchyard/shared';
import type { AssistantConfig } from '../config';
import { InMemoryKnowledgeStore, type KnowledgeStore } from '../knowledge/knowledge-store';
import { MongoKnowledgeStore } from '../knowledge/mongo-knowledge-store';
import { MongoSessionStore } from './mongo-session-store';
import { InMemorySessionStore, type SessionStore } from './session-store';

export interface AssistantStores {
  sessions: SessionStore;
  /** Usage events the bus refused, kept until relayed (collection `outbox` of this service's database). */
  outbox: OutboxStore;
  /** Organizations' knowledge collections and documents. */
  knowledge: KnowledgeStore;
  /** Closes the database connection. */
  close(): Promise<void>;
}

/** MongoDB stores when MONGODB_URI is set (indexes created here), else in-memory ones. */
export async function createStores(config: AssistantConfig, logger: Logger): Promise<AssistantStores> {
  if (!config.mongodbUri) {
    logger.warn('MONGODB_URI is not set: sessions and knowledge bases are kept in memory and lost on restart');
    const sessions = new InMemorySessionStore();
    return { sessions, outbox: new InMemoryOutboxStore(), knowledge: new InMemoryKnowledgeStore(), close: () => sessions.close() };
  }
  const mongo = await connectMongo(config.mongodbUri, config.mongodbDatabase, logger);
  try {
    const sessions = new MongoSessionStore(mongo.db);
    await sessions.ensureIndexes();
    const outbox = new MongoOutboxStore(mongo.db);
    await outbox.ensureIndexes();
    const knowledge = new MongoKnowledgeStore(mongo.db);
    await knowledge.ensureIndexes();
    return { sessions, outbox, knowledge, close: () => mongo.close() };
  } catch (error) {
    await mongo.close();
    throw error;
  }
}
