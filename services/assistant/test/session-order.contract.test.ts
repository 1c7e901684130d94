import { setTimeout as sleep } from 'node:timers/promises';
import { connectMongo, connectRedis, createInMemorySharedState, createRedisSharedState, type MongoConnection, type SharedState } from '@switchyard/shared';
import { contractSuite, endpointOf, silentLogger, uniqueName } from '@switchyard/shared/testing';
import { createAgentRegistry } from '../src/agents/registry';
import { UsagePublisher } from '../src/events/usage-publisher';
import { createReplyHandler } from '../src/handlers/reply';
import type { Responder, ResponderInput } from '../src/responders/responder';
import { MongoSessionStore } from '../src/store/mongo-session-store';
import { InMemorySessionStore, type SessionStore } from '../src/store/session-store';
import { expect } from './chai';
import { CONTEXT, RecordingBus, request } from './helpers';

/** Two replicas' worth of infrastructure: each open() is one replica's session store and shared state. */
interface Replicas {
  open(): Promise<{ sessions: SessionStore; state: SharedState }>;
  cleanup(): Promise<void>;
}

/** A slow model that answers with how many messages it was shown, so a turn that missed another is visible. */
class CountingResponder implements Responder {
  readonly defaultModel = 'counting';
  readonly seen: number[] = [];

  checkModel(model: string): string {
    return model;
  }

  async respond(input: ResponderInput) {
    this.seen.push(input.history.length);
    await sleep(30);
    return { reply: `saw ${input.history.length}`, model: 'counting', tokensInput: 1, tokensOutput: 1, cost: 0 };
  }
}

contractSuite<Replicas>(
  'Session order across replicas',
  {
    memory: {
      async create() {
        const sessions = new InMemorySessionStore();
        const state = createInMemorySharedState();
        return { open: async () => ({ sessions: sessions.sharing(), state }), cleanup: async () => undefined };
      },
    },
    // Real Redis for the lock and, when it is up too, real MongoDB for the sessions.
    redis: {
      async create() {
        const prefix = `${uniqueName('test_assistant')}:`;
        const database = uniqueName('test_assistant_order');
        const memory = new InMemorySessionStore();
        const closers: Array<() => Promise<void>> = [];
        return {
          async open() {
            const redis = await connectRedis(endpointOf('redis')!, silentLogger());
            closers.push(async () => void (await redis.quit()));
            const state = createRedisSharedState(redis, { prefix });
            const mongoUri = endpointOf('mongo');
            if (!mongoUri) return { sessions: memory.sharing(), state };
            const mongo: MongoConnection = await connectMongo(mongoUri, database, silentLogger());
            closers.push(async () => {
              await mongo.db.dropDatabase().catch(() => undefined);
              await mongo.close();
            });
            const sessions = new MongoSessionStore(mongo.db);
            await sessions.ensureIndexes();
            return { sessions, state };
          },
          async cleanup() {
            for (const close of closers.reverse()) await close();
          },
        };
      },
      destroy: (replicas) => replicas.cleanup(),
    },
  },
  (replicas) => {
    it('serializes concurrent turns of one session on two replicas: each turn sees every earlier one, none is lost', async function () {
      this.timeout(30_000);
      const agents = createAgentRegistry();
      const responder = new CountingResponder();
      const replica = async () => {
        const { sessions, state } = await replicas().open();
        return createReplyHandler({ agents, sessions, responder, usage: new UsagePublisher(new RecordingBus(), silentLogger()), historyLimit: 100, locks: state.locks });
      };
      const [a, b] = [await replica(), await replica()];
      const said = Array.from({ length: 8 }, (_, i) => `question ${i}`);
      // Each client sends only its new message, all at once, half to each replica.
      await Promise.all(said.map((content, i) => (i % 2 ? a : b)(request('chat', [{ role: 'user', content }]), { ...CONTEXT, requestId: `req_${i}` })));

      // Serialized: the turns saw 1, 3, 5, ... messages (every earlier question and answer), never the same history twice.
      expect([...responder.seen].sort((x, y) => x - y)).to.deep.equal(said.map((_, i) => 2 * i + 1));
      const { sessions } = await replicas().open();
      const stored = (await sessions.get('org_a', 'sess_1'))!;
      expect(stored.messages.map((m) => m.role)).to.deep.equal(said.flatMap(() => ['user', 'assistant']));
      expect(stored.messages.filter((m) => m.role === 'user').map((m) => m.content).sort()).to.deep.equal([...said].sort());
      expect(stored.messages.filter((m) => m.role === 'assistant').map((m) => m.content)).to.deep.equal(said.map((_, i) => `saw ${2 * i + 1}`));
      expect(stored.version).to.equal(said.length);
    });
  },
);
