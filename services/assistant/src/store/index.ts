import {
  connectMongo,
  createSharedState,
  InMemoryAnswerStore,
  InMemoryOutboxStore,
  MongoAnswerStore,
  MongoOutboxStore,
  type AnswerStore,
  type Logger,
  type OutboxStore,
  type SharedState,
} from '@switchyard/shared';
import type { AssistantConfig } from '../config';
import { InMemoryKnowledgeStore, type KnowledgeStore } from '../knowledge/knowledge-store';
import { MongoKnowledgeStore } from '../knowledge/mongo-knowledge-store';
import { InMemoryAgentProfileStore, type AgentProfileStore } from './agent-profile-store';
import { MongoAgentProfileStore } from './mongo-agent-profile-store';
import { MongoSessionStore } from './mongo-session-store';
import { InMemorySessionStore, type SessionStore } from './session-store';

export interface AssistantStores {
  sessions: SessionStore;
  /** Usage events the bus refused, kept until relayed (collection `outbox` of this service's database). */
  outbox: OutboxStore;
  /** Finished replies kept for retries after a lost answer (collection `answers`). */
  answers: AnswerStore;
  /** Organizations' knowledge collections and documents. */
  knowledge: KnowledgeStore;
  /** Organizations' agent profiles. */
  profiles: AgentProfileStore;
  /** State shared by replicas (the per-session lock): Redis when REDIS_URL is set. */
  state: SharedState;
  /** Closes the database and Redis connections. */
  close(): Promise<void>;
}

/** MongoDB stores when MONGODB_URI is set (indexes created here), else in-memory ones. */
export async function createStores(
  config: AssistantConfig,
  logger: Logger,
): Promise<AssistantStores> {
  const state = await createSharedState({
    redisUrl: config.redisUrl,
    prefix: 'switchyard:assistant:',
    logger,
  });
  try {
    const stores = await createDataStores(config, logger);
    const close = async () => {
      await stores.close();
      await state.close();
    };
    return { ...stores, state, close };
  } catch (error) {
    await state.close();
    throw error;
  }
}

async function createDataStores(
  config: AssistantConfig,
  logger: Logger,
): Promise<Omit<AssistantStores, 'state'>> {
  if (!config.mongodbUri) {
    logger.warn(
      'MONGODB_URI is not set: sessions, knowledge bases and agent profiles are kept in memory and lost on restart',
    );
    const sessions = new InMemorySessionStore();
    return {
      sessions,
      outbox: new InMemoryOutboxStore(),
      answers: new InMemoryAnswerStore(),
      knowledge: new InMemoryKnowledgeStore(),
      profiles: new InMemoryAgentProfileStore(),
      close: () => sessions.close(),
    };
  }
  const mongo = await connectMongo(config.mongodbUri, config.mongodbDatabase, logger);
  try {
    const sessions = new MongoSessionStore(mongo.db);
    await sessions.ensureIndexes();
    const outbox = new MongoOutboxStore(mongo.db);
    await outbox.ensureIndexes();
    const answers = new MongoAnswerStore(mongo.db);
    await answers.ensureIndexes();
    const knowledge = new MongoKnowledgeStore(mongo.db);
    await knowledge.ensureIndexes();
    const profiles = new MongoAgentProfileStore(mongo.db);
    await profiles.ensureIndexes();
    return { sessions, outbox, answers, knowledge, profiles, close: () => mongo.close() };
  } catch (error) {
    await mongo.close();
    throw error;
  }
}
