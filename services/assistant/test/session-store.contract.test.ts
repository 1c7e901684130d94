import { UsagePublisher } from '@switchyard/shared';
import { contractSuite, silentLogger } from '@switchyard/shared/testing';
import { createAgentRegistry } from '../src/agents/registry';
import { BuiltinResponder } from '../src/responders/builtin';
import { documentId } from '../src/store/document-id';
import { MongoSessionStore, SESSIONS_COLLECTION } from '../src/store/sessions/mongo';
import { SessionConflictError, type Session, type SessionStore } from '../src/store/sessions/port';
import { InMemorySessionStore } from '../src/store/sessions/memory';
import { expect } from './chai';
import {
  CONTEXT,
  freshMongoDatabase,
  mongoBackend,
  RecordingBus,
  replyWith,
  request,
} from './helpers';

/** One backend per test; every store opened on it sees the same data (replicas, or a restart). */
interface Backend {
  open(): Promise<SessionStore>;
  cleanup(): Promise<void>;
}

function session(overrides: Partial<Session> = {}): Session {
  return {
    organization: 'org_a',
    sessionId: 'sess_1',
    userId: 'user_1',
    agent: 'chat',
    messages: [{ role: 'user', content: 'hello' }],
    memory: { facts: { orderNumber: '77123' }, onboarding: { confirmedSteps: [1], lastStep: 2 } },
    summary: { text: 'The user asked about an order.', covered: 0 },
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    version: 0,
    ...overrides,
  };
}

async function conflictOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (error: unknown) => error,
  );
}

contractSuite<Backend>(
  'SessionStore',
  {
    memory: {
      async create() {
        const root = new InMemorySessionStore();
        return { open: async () => root.sharing(), cleanup: async () => undefined };
      },
    },
    mongo: mongoBackend(async (db) => {
      const store = new MongoSessionStore(db);
      await store.ensureIndexes();
      return store;
    }),
  },
  (backend) => {
    it('stores a new session as version 1 and reads it back whole', async () => {
      const store = await backend().open();
      expect(await store.get('org_a', 'sess_1')).to.equal(undefined);
      expect(await store.save(session())).to.equal(1);
      expect(await store.get('org_a', 'sess_1')).to.deep.equal(session({ version: 1 }));
    });

    it('keeps organizations apart', async () => {
      const store = await backend().open();
      await store.save(session());
      expect(await store.get('org_b', 'sess_1')).to.equal(undefined);
      expect(await store.save(session({ organization: 'org_b', userId: 'user_2' }))).to.equal(1);
      expect((await store.get('org_a', 'sess_1'))?.userId).to.equal('user_1');
      expect((await store.get('org_b', 'sess_1'))?.userId).to.equal('user_2');
    });

    it('rejects a write based on an outdated version (optimistic concurrency)', async () => {
      const store = await backend().open();
      await store.save(session());
      const read = (await store.get('org_a', 'sess_1'))!;
      expect(
        await store.save({
          ...read,
          messages: [...read.messages, { role: 'assistant', content: 'first' }],
        }),
      ).to.equal(2);
      expect(
        await conflictOf(
          store.save({
            ...read,
            messages: [...read.messages, { role: 'assistant', content: 'second' }],
          }),
        ),
      ).to.be.instanceOf(SessionConflictError);
      expect(await conflictOf(store.save(session()))).to.be.instanceOf(SessionConflictError);
      expect(await conflictOf(store.save({ ...read, version: 7 }))).to.be.instanceOf(
        SessionConflictError,
      );
      const latest = await store.get('org_a', 'sess_1');
      expect(latest?.version).to.equal(2);
      expect(latest?.messages.at(-1)?.content).to.equal('first');
    });

    it('lets exactly one of many concurrent writers of the same version win, across replicas', async () => {
      const [a, b] = [await backend().open(), await backend().open()];
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          conflictOf((i % 2 ? a : b).save(session({ agent: `writer_${i}` }))),
        ),
      );
      const winners = results.filter((r) => r === undefined);
      expect(winners).to.have.length(1);
      expect(results.filter((r) => r instanceof SessionConflictError)).to.have.length(19);
      const stored = await a.get('org_a', 'sess_1');
      expect(stored?.version).to.equal(1);
      expect(stored?.agent).to.equal(`writer_${results.indexOf(undefined)}`);
    });

    it('lets exactly one of many concurrent writers of a later version win, and the next reader sees it', async () => {
      const [a, b] = [await backend().open(), await backend().open()];
      let current = session();
      for (let turn = 1; turn <= 3; turn++)
        current = { ...current, version: await a.save(current) };
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          conflictOf((i % 2 ? a : b).save({ ...current, agent: `writer_${i}` })),
        ),
      );
      expect(results.filter((r) => r === undefined)).to.have.length(1);
      expect(results.filter((r) => r instanceof SessionConflictError)).to.have.length(9);
      const stored = await b.get('org_a', 'sess_1');
      expect(stored?.version).to.equal(4);
      expect(stored?.agent).to.equal(`writer_${results.indexOf(undefined)}`);
    });

    it('rejects a writer that read long ago and a new session reusing the id, after many saves', async () => {
      const store = await backend().open();
      let current = session();
      let early: Session | undefined;
      for (let turn = 1; turn <= 25; turn++) {
        current = { ...current, version: await store.save({ ...current, agent: `turn_${turn}` }) };
        if (turn === 2) early = await store.get('org_a', 'sess_1');
      }
      expect(await conflictOf(store.save({ ...early!, agent: 'stale' }))).to.be.instanceOf(
        SessionConflictError,
      );
      expect(await conflictOf(store.save(session({ agent: 'restarted' })))).to.be.instanceOf(
        SessionConflictError,
      );
      const latest = await (await backend().open()).get('org_a', 'sess_1');
      expect([latest?.version, latest?.agent]).to.deep.equal([25, 'turn_25']);
    });

    it('keeps the latest version through many saves and shows it to a second instance (a restart)', async () => {
      const store = await backend().open();
      let current = session();
      for (let turn = 1; turn <= 30; turn++) {
        current = {
          ...current,
          messages: [...current.messages, { role: 'user', content: `turn ${turn}` }],
        };
        current = { ...current, version: await store.save(current) };
      }
      const restarted = await backend().open();
      const read = await restarted.get('org_a', 'sess_1');
      expect(read?.version).to.equal(30);
      expect(read?.messages).to.have.length(31);
      expect(read?.memory).to.deep.equal(session().memory);
    });

    it('loses no message when two replicas answer the same session at the same time', async () => {
      const agents = createAgentRegistry();
      const replica = async () =>
        replyWith({
          agents,
          sessions: await backend().open(),
          responder: new BuiltinResponder(agents),
          usage: new UsagePublisher(new RecordingBus(), 'assistant', silentLogger()),
          historyLimit: 50,
        });
      const [a, b] = [await replica(), await replica()];
      const said = Array.from(
        { length: 6 },
        (_, i) => `question number ${i} about upcoming events`,
      );
      await Promise.all(
        said.map((content, i) =>
          (i % 2 ? a : b)(request('chat', [{ role: 'user', content }]), {
            ...CONTEXT,
            requestId: `req_${i}`,
          }),
        ),
      );

      const stored = (await (await backend().open()).get('org_a', 'sess_1'))!;
      const users = stored.messages.filter((m) => m.role === 'user').map((m) => m.content);
      expect([...users].sort()).to.deep.equal([...said].sort());
      expect(stored.messages.filter((m) => m.role === 'assistant')).to.have.length(6);
      expect(stored.version).to.equal(6);
    });
  },
);

describe('MongoSessionStore: sessions an earlier release stored by version', function () {
  const mongo = freshMongoDatabase();

  it('moves each session to one document holding its latest version, once, keeping a newer one', async () => {
    const db = mongo().db;
    const sessions = db.collection<Session & { _id: string }>(SESSIONS_COLLECTION);
    // As the earlier release left them: every version a document (old ones pruned), a head copy.
    const versioned = (sessionId: string, versions: number[]) =>
      versions.map((version) => ({
        ...session({ sessionId, agent: `turn_${version}`, version }),
        _id: documentId('org_a', sessionId, version),
      }));
    await sessions.insertMany([
      ...versioned('sess_1', [1, 9, 10, 11]),
      ...versioned('sess_10', [1, 2]),
      ...versioned('sess_2', [1, 2, 3]),
    ]);
    await db.collection('session_heads').insertOne({ _id: documentId('org_a', 'sess_1') } as never);
    // sess_2 was already written by this release (a replica that started first).
    await sessions.insertOne({
      ...session({ sessionId: 'sess_2', agent: 'newer', version: 4 }),
      _id: documentId('org_a', 'sess_2'),
    });

    for (let start = 0; start < 2; start++) await new MongoSessionStore(db).ensureIndexes();

    const store = new MongoSessionStore(db);
    expect((await store.get('org_a', 'sess_1'))?.agent).to.equal('turn_11');
    expect((await store.get('org_a', 'sess_10'))?.agent).to.equal('turn_2');
    expect((await store.get('org_a', 'sess_2'))?.agent).to.equal('newer');
    expect(await sessions.countDocuments()).to.equal(3);
    expect(await db.listCollections({ name: 'session_heads' }).toArray()).to.have.length(0);
    expect(await store.save({ ...(await store.get('org_a', 'sess_1'))! })).to.equal(12);
  });
});
