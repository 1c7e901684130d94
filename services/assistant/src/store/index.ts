import {
  connectMongo,
  createInMemorySharedState,
  createSharedState,
  InMemoryAnswerStore,
  InMemoryOutboxStore,
  MongoAnswerStore,
  MongoOutboxStore,
  type AnswerStore,
  type Locks,
  type Logger,
  type OpenedStores,
  type OutboxStore,
} from '@switchyard/shared';
import type { AssistantConfig } from '../config';
import { InMemoryKnowledgeStore } from './knowledge/memory';
import { MongoKnowledgeStore } from './knowledge/mongo';
import type { KnowledgeStore } from './knowledge/port';
import { InMemoryAgentProfileStore } from './profiles/memory';
import { MongoAgentProfileStore } from './profiles/mongo';
import type { AgentProfileStore } from './profiles/port';
import { InMemorySessionStore } from './sessions/memory';
import { MongoSessionStore } from './sessions/mongo';
import type { SessionStore } from './sessions/port';

export interface AssistantStores {
  sessions: SessionStore;
  /** Events the bus refused, kept until relayed (collection `outbox` of this service's database). */
  outbox: OutboxStore;
  /** Finished replies kept for retries after a lost answer (collection `answers`). */
  answers: AnswerStore;
  /** Organizations' knowledge collections and documents. */
  knowledge: KnowledgeStore;
  /** Organizations' agent profiles. */
  profiles: AgentProfileStore;
  /** Locks shared by the replicas (one call per session at a time): Redis when REDIS_URL is set. */
  locks: Locks;
}

export function inMemoryStores(): AssistantStores {
  return {
    sessions: new InMemorySessionStore(),
    outbox: new InMemoryOutboxStore(),
    answers: new InMemoryAnswerStore(),
    knowledge: new InMemoryKnowledgeStore(),
    profiles: new InMemoryAgentProfileStore(),
    locks: createInMemorySharedState().locks,
  };
}

/** MongoDB stores when MONGODB_URI is set (indexes created here), else in-memory ones; Redis locks when REDIS_URL is set. */
export async function createStores(
  config: AssistantConfig,
  logger: Logger,
): Promise<OpenedStores<AssistantStores>> {
  const state = await createSharedState({
    redisUrl: config.redisUrl,
    prefix: 'switchyard:assistant:',
    logger,
  });
  if (!config.mongodbUri) {
    logger.warn(
      'MONGODB_URI is not set: sessions, knowledge bases and agent profiles are kept in memory and lost on restart',
    );
    return { stores: { ...inMemoryStores(), locks: state.locks }, close: () => state.close() };
  }
  const mongo = await connectMongo(config.mongodbUri, config.mongodbDatabase, logger).catch(
    async (error: unknown) => {
      await state.close();
      throw error;
    },
  );
  const close = async () => {
    await mongo.close();
    await state.close();
  };
  try {
    const sessions = new MongoSessionStore(mongo.db);
    const outbox = new MongoOutboxStore(mongo.db);
    const answers = new MongoAnswerStore(mongo.db);
    const knowledge = new MongoKnowledgeStore(mongo.db);
    const profiles = new MongoAgentProfileStore(mongo.db);
    for (const store of [sessions, outbox, answers, knowledge, profiles])
      await store.ensureIndexes();
    return {
      stores: { sessions, outbox, answers, knowledge, profiles, locks: state.locks },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

export type { KnowledgeCollection, KnowledgeDocument, KnowledgeStore } from './knowledge/port';
export type { AgentProfile, AgentProfileStore, AgentStep } from './profiles/port';
export type { ChatMessage, Session, SessionMemory, SessionStore } from './sessions/port';
export { SessionConflictError } from './sessions/port';
export { InMemoryKnowledgeStore, InMemoryAgentProfileStore, InMemorySessionStore };
export { MongoKnowledgeStore, MongoAgentProfileStore, MongoSessionStore };
