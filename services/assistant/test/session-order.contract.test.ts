import { setTimeout as sleep } from 'node:timers/promises';
import {
  callUnary,
  connectMongo,
  connectRedis,
  createClient,
  createInMemorySharedState,
  createRedisSharedState,
  InMemoryEventBus,
  protos,
  type MongoConnection,
  type OpenedStores,
  type RunningService,
  type SharedState,
  UsagePublisher,
} from '@switchyard/shared';
import type {
  AssistantServiceClient,
  ReplyRequest,
  ReplyResponse__Output,
} from '@switchyard/shared/proto/assistant/v1';
import { loadAssistantConfig, startAssistantService } from '../src/server';
import { createStores, type AssistantStores } from '../src/store/index';
import { contractSuite, endpointOf, silentLogger, uniqueName } from '@switchyard/shared/testing';
import { createAgentRegistry } from '../src/agents/registry';
import type { Responder, ResponderInput } from '../src/responders/responder';
import { MongoSessionStore } from '../src/store/sessions/mongo';
import { type ChatMessage, type SessionStore } from '../src/store/sessions/port';
import { InMemorySessionStore } from '../src/store/sessions/memory';
import { expect } from './chai';
import { CONTEXT, RecordingBus, replyWith, request } from './helpers';

/** Two replicas' worth of infrastructure: each open() is one replica's session store and shared state. */
interface Replicas {
  open(): Promise<{ sessions: SessionStore; state: SharedState }>;
  cleanup(): Promise<void>;
}

/** What the counting model answers having been shown these user messages (in its own words: each grounded in them). */
function seenReply(users: string[]): string {
  return `saw: ${users.join(' | ')}`;
}

/** The replies a serialized conversation stores: each saw every user message before it and its own. */
function serializedReplies(messages: ChatMessage[]): string[] {
  const users = messages.filter((m) => m.role === 'user').map((m) => m.content);
  return users.map((_, i) => seenReply(users.slice(0, i + 1)));
}

/** A slow model that answers with the user messages it was shown, so a turn that missed another is visible. */
class CountingResponder implements Responder {
  readonly defaultModel = 'counting';
  readonly seen: number[] = [];

  checkModel(model: string): string {
    return model;
  }

  async respond(input: ResponderInput) {
    this.seen.push(input.history.length);
    await sleep(30);
    return {
      reply: seenReply(input.history.filter((m) => m.role === 'user').map((m) => m.content)),
      model: 'counting',
      tokensInput: 1,
      tokensOutput: 1,
      cost: 0,
    };
  }
}

contractSuite<Replicas>(
  'Session order across replicas',
  {
    memory: {
      async create() {
        const sessions = new InMemorySessionStore();
        const state = createInMemorySharedState();
        return {
          open: async () => ({ sessions: sessions.sharing(), state }),
          cleanup: async () => undefined,
        };
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
        return replyWith({
          agents,
          sessions,
          responder,
          usage: new UsagePublisher(new RecordingBus(), 'assistant', silentLogger()),
          historyLimit: 100,
          locks: state.locks,
        });
      };
      const [a, b] = [await replica(), await replica()];
      const said = Array.from({ length: 8 }, (_, i) => `question ${i}`);
      // Each client sends only its new message, all at once, half to each replica.
      await Promise.all(
        said.map((content, i) =>
          (i % 2 ? a : b)(request('chat', [{ role: 'user', content }]), {
            ...CONTEXT,
            requestId: `req_${i}`,
          }),
        ),
      );

      // Serialized: the turns saw 1, 3, 5, ... messages (every earlier question and answer), never the same history twice.
      expect([...responder.seen].sort((x, y) => x - y)).to.deep.equal(
        said.map((_, i) => 2 * i + 1),
      );
      const { sessions } = await replicas().open();
      const stored = (await sessions.get('org_a', 'sess_1'))!;
      expect(stored.messages.map((m) => m.role)).to.deep.equal(
        said.flatMap(() => ['user', 'assistant']),
      );
      expect(
        stored.messages
          .filter((m) => m.role === 'user')
          .map((m) => m.content)
          .sort(),
      ).to.deep.equal([...said].sort());
      expect(
        stored.messages.filter((m) => m.role === 'assistant').map((m) => m.content),
      ).to.deep.equal(serializedReplies(stored.messages));
      expect(stored.version).to.equal(said.length);
    });
  },
);

describe('Session order across two assistant services on real Redis and MongoDB (gRPC, createStores)', function () {
  this.timeout(60_000);
  const replicas: Array<{
    service: RunningService;
    opened: OpenedStores<AssistantStores>;
    client: AssistantServiceClient;
  }> = [];
  const database = uniqueName('test_assistant_replicas');
  const responder = new CountingResponder();

  before(async function () {
    if (!endpointOf('redis') || !endpointOf('mongo')) this.skip();
    const config = {
      ...loadAssistantConfig({}),
      grpcHost: '127.0.0.1',
      grpcPort: 0,
      mongodbUri: endpointOf('mongo')!,
      mongodbDatabase: database,
      redisUrl: endpointOf('redis')!,
    };
    for (let i = 0; i < 2; i++) {
      // As src/index.ts wires a replica: its own connections to the shared MongoDB and Redis.
      const opened = await createStores(config, silentLogger());
      const service = await startAssistantService({
        config,
        bus: new InMemoryEventBus(),
        logger: silentLogger(),
        stores: opened.stores,
        responder,
      });
      replicas.push({
        service,
        opened,
        client: createClient(protos.assistant().AssistantService, `127.0.0.1:${service.port}`),
      });
    }
  });

  after(async () => {
    for (const { service, opened, client } of replicas) {
      client.close();
      await service.stop();
      await opened.close();
    }
    if (endpointOf('mongo')) {
      const mongo = await connectMongo(endpointOf('mongo')!, database, silentLogger());
      await mongo.db.dropDatabase().catch(() => undefined);
      await mongo.close();
    }
  });

  it('answers concurrent turns of one session in order, each seeing every earlier turn', async () => {
    const said = Array.from({ length: 6 }, (_, i) => `replica question ${i}`);
    const ask = (content: string, i: number) => {
      const { client } = replicas[i % 2]!;
      const request: ReplyRequest = {
        agent: 'chat',
        user_id: 'u1',
        session_id: 'shared',
        messages: [{ role: 'user', content }],
        model: 'counting',
      };
      return callUnary<ReplyRequest, ReplyResponse__Output>(
        'assistant',
        client.Reply,
        client,
        request,
        { ...CONTEXT, requestId: `req_r${i}` },
        20_000,
      );
    };
    const replies = await Promise.all(said.map(ask));
    const stored = (await replicas[0]!.opened.stores.sessions.get('org_a', 'shared'))!;
    expect(replies.map((r) => r.reply).sort()).to.deep.equal(
      serializedReplies(stored.messages).sort(),
    );
    expect(stored.messages.map((m) => m.role)).to.deep.equal(
      said.flatMap(() => ['user', 'assistant']),
    );
    expect(
      stored.messages
        .filter((m) => m.role === 'user')
        .map((m) => m.content)
        .sort(),
    ).to.deep.equal([...said].sort());
  });
});
