import type { Db } from 'mongodb';
import { connectMongo, type MongoConnection, UsagePublisher } from '@switchyard/shared';
import {
  endpointOf,
  silentLogger,
  uniqueName,
  type BackendFixture,
} from '@switchyard/shared/testing';
import {
  createInMemorySharedState,
  type AnyEvent,
  type CallContext,
  type CallControl,
  type EventBus,
  type Locks,
  type Subscription,
} from '@switchyard/shared';
import type { ReplyRequest__Output } from '@switchyard/shared/proto/assistant/v1';
import { AgentDirectory } from '../src/agents/directory';
import { createAgentRegistry, type AgentRegistry } from '../src/agents/registry';
import { SessionLock } from '../src/conversation/session-lock';
import { reply as replyHandler, type AssistantReply, type ReplyDeps } from '../src/handlers/reply';
import { BuiltinResponder } from '../src/responders/builtin';
import { type ChatMessage } from '../src/store/sessions/port';
import { InMemorySessionStore } from '../src/store/sessions/memory';

/** Keeps what is published, so tests can look at the usage events. */
export class RecordingBus implements EventBus {
  readonly published: AnyEvent[] = [];
  failing = false;

  async publish(event: AnyEvent): Promise<void> {
    if (this.failing) throw new Error('broker down');
    this.published.push(event);
  }

  async subscribe(): Promise<Subscription> {
    return { close: async () => undefined };
  }

  subscribeBatch(): Promise<Subscription> {
    return this.subscribe();
  }

  async deadLetter(): Promise<void> {}

  async close(): Promise<void> {}
}

export const CONTEXT: CallContext = {
  organization: 'org_a',
  keyId: 'key_1',
  requestId: 'req_test1',
};

/** The Reply handler bound to deps built from the agents (directory) and locks (default: this process). */
export function replyWith(
  deps: Omit<ReplyDeps, 'directory' | 'lock'> & { agents: AgentRegistry; locks?: Locks },
) {
  const { agents, locks, ...rest } = deps;
  const bound: ReplyDeps = {
    ...rest,
    directory: new AgentDirectory(agents, rest.profiles),
    lock: new SessionLock(locks ?? createInMemorySharedState().locks),
  };
  return (request: ReplyRequest__Output, context: CallContext, control?: CallControl) =>
    replyHandler(bound, request, context, control);
}

/** The reply path on the builtin engine and in-memory stores; extra adds knowledge, profiles, escalations. */
export function makeReply(
  historyLimit = 50,
  extra: (bus: RecordingBus) => Partial<ReplyDeps> = () => ({}),
) {
  const agents = createAgentRegistry();
  const bus = new RecordingBus();
  const sessions = new InMemorySessionStore();
  const reply = replyWith({
    agents,
    sessions,
    responder: new BuiltinResponder(agents),
    usage: new UsagePublisher(bus, 'assistant', silentLogger()),
    historyLimit,
    ...extra(bus),
  });
  return { reply, bus, sessions, agents };
}

/** Messages as they arrive on the wire: any role string. */
export type WireMessage = { role: string; content: string };

export function request(
  agent: string,
  messages: WireMessage[],
  extra: Partial<ReplyRequest__Output> = {},
): ReplyRequest__Output {
  return {
    agent,
    user_id: 'user_1',
    session_id: 'sess_1',
    messages,
    model: '',
    time_zone: '',
    ...extra,
  };
}

/** A client that sends the whole conversation each turn, as the interface describes. */
export class Conversation {
  readonly messages: ChatMessage[] = [];

  constructor(
    private readonly reply: (
      req: ReplyRequest__Output,
      ctx: CallContext,
    ) => Promise<AssistantReply>,
    private readonly agent: string,
    private readonly extra: Partial<ReplyRequest__Output> = {},
    private readonly context: CallContext = CONTEXT,
  ) {}

  async say(content: string, step?: number): Promise<AssistantReply> {
    this.messages.push({ role: 'user', content });
    const response = await this.reply(
      request(this.agent, [...this.messages], { ...this.extra, step }),
      this.context,
    );
    this.messages.push({ role: 'assistant', content: response.reply });
    return response;
  }
}

/** A backend whose stores all open on one fresh MongoDB database (replicas, or a restart), dropped afterwards. */
export function mongoBackend<T>(
  open: (db: Db) => Promise<T>,
): BackendFixture<{ open(): Promise<T>; cleanup(): Promise<void> }> {
  return {
    async create() {
      const database = uniqueName('test_assistant');
      const connections: MongoConnection[] = [];
      return {
        async open() {
          const connection = await connectMongo(endpointOf('mongo')!, database, silentLogger());
          connections.push(connection);
          return open(connection.db);
        },
        async cleanup() {
          if (connections[0]) await connections[0].db.dropDatabase();
          await Promise.all(connections.map((c) => c.close()));
        },
      };
    },
    destroy: (backend) => backend.cleanup(),
  };
}

/** In a describe: a fresh database per test on the real MongoDB (skipped without one); the getter gives its connection. */
export function freshMongoDatabase(): () => MongoConnection {
  let connection: MongoConnection | undefined;
  before(function () {
    if (!endpointOf('mongo')) this.skip();
  });
  beforeEach(async () => {
    connection = await connectMongo(
      endpointOf('mongo')!,
      uniqueName('test_assistant'),
      silentLogger(),
    );
  });
  afterEach(async () => {
    await connection?.db.dropDatabase();
    await connection?.close();
    connection = undefined;
  });
  return () => {
    if (!connection) throw new Error('no database');
    return connection;
  };
}
