import { InMemoryEventBus } from '@switchyard/shared';
import { contractSuite, silentLogger, waitFor } from '@switchyard/shared/testing';
import { CachedKnowledgeStore } from '../src/caches/cached-knowledge';
import { CachedProfileStore } from '../src/caches/cached-profiles';
import { OrganizationCache } from '../src/caches/organization-cache';
import { AssistantChangeFeed } from '../src/events/change-feed';
import type { KnowledgeCollection, KnowledgeStore } from '../src/store/knowledge/port';
import { InMemoryKnowledgeStore } from '../src/store/knowledge/memory';
import { MongoKnowledgeStore } from '../src/store/knowledge/mongo';
import type { AgentProfile, AgentProfileStore } from '../src/store/profiles/port';
import { InMemoryAgentProfileStore } from '../src/store/profiles/memory';
import { MongoAgentProfileStore } from '../src/store/profiles/mongo';
import { expect } from './chai';
import { mongoBackend } from './helpers';

const ORG = 'org_cache';

function profile(name: string, greeting: string): AgentProfile {
  return {
    organization: ORG,
    name,
    description: 'Box office',
    instructions: '',
    model: '',
    collections: [],
    tools: [],
    greeting,
    steps: [],
    base: 'chat',
    escalation: { message: '', contact: '', channel: '' },
    createdAt: '2026-11-20T10:00:00.000Z',
    updatedAt: '2026-11-20T10:00:00.000Z',
  };
}

function collection(name: string): KnowledgeCollection {
  return {
    organization: ORG,
    name,
    kind: 'articles',
    description: '',
    timeZone: '',
    documentCount: 0,
    revision: 0,
    createdAt: '2026-11-20T10:00:00.000Z',
    updatedAt: '2026-11-20T10:00:00.000Z',
  };
}

/** Counts the reads that reach the store. */
function counted<T extends object>(store: T, reads: Record<string, number>): T {
  return new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        reads[String(property)] = (reads[String(property)] ?? 0) + 1;
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

interface Stores {
  profiles: AgentProfileStore;
  knowledge: KnowledgeStore;
}

/** One assistant replica's cached stores over the shared backend, following the shared bus. */
async function replica(stores: Stores, bus: InMemoryEventBus, ttlMs = 60_000) {
  const reads: Record<string, number> = {};
  const feed = new AssistantChangeFeed(bus, silentLogger());
  const profileCache = new OrganizationCache<Map<string, AgentProfile>>(ttlMs);
  const catalogCache = new OrganizationCache<KnowledgeCollection[]>(ttlMs);
  feed.onChange((organization, change) =>
    (change === 'profiles' ? profileCache : catalogCache).drop(organization),
  );
  await feed.start();
  return {
    reads,
    feed,
    profiles: new CachedProfileStore(counted(stores.profiles, reads), profileCache, (o) =>
      feed.changed(o, 'profiles'),
    ),
    knowledge: new CachedKnowledgeStore(counted(stores.knowledge, reads), catalogCache, (o) =>
      feed.changed(o, 'knowledge'),
    ),
  };
}

contractSuite<{ open(): Promise<Stores>; cleanup(): Promise<void> }>(
  'Assistant read caches (profiles, knowledge catalogs) across replicas',
  {
    memory: {
      async create() {
        const stores = {
          profiles: new InMemoryAgentProfileStore(),
          knowledge: new InMemoryKnowledgeStore(),
        };
        return { open: async () => stores, cleanup: async () => undefined };
      },
    },
    mongo: mongoBackend(async (db) => {
      const profiles = new MongoAgentProfileStore(db);
      await profiles.ensureIndexes();
      const knowledge = new MongoKnowledgeStore(db);
      await knowledge.ensureIndexes();
      return { profiles, knowledge };
    }),
  },
  (backend) => {
    const stops: Array<() => Promise<void>> = [];
    afterEach(async () => {
      for (const stop of stops.splice(0)) await stop();
    });

    async function twoReplicas(ttlMs?: number) {
      const stores = await backend().open();
      const bus = new InMemoryEventBus();
      const a = await replica(stores, bus, ttlMs);
      const b = await replica(stores, bus, ttlMs);
      stops.push(
        () => a.feed.stop(),
        () => b.feed.stop(),
      );
      return { a, b };
    }

    it('a turn reads the profiles once, then from memory', async () => {
      const { a } = await twoReplicas();
      await a.profiles.put(profile('box-office', 'Hello'));
      const before = a.reads.list ?? 0;
      for (let turn = 0; turn < 20; turn++) {
        expect((await a.profiles.get(ORG, 'box-office'))?.greeting).to.equal('Hello');
        expect(await a.profiles.get(ORG, 'nobody')).to.equal(undefined);
      }
      expect((a.reads.list ?? 0) - before).to.equal(1);
      expect(a.reads.get ?? 0).to.equal(0);
    });

    it('a profile written on one replica answers on the other at its next turn', async () => {
      const { a, b } = await twoReplicas();
      expect(await b.profiles.get(ORG, 'box-office')).to.equal(undefined); // cached as absent
      await a.profiles.put(profile('box-office', 'Hello'));
      await waitFor(async () => (await b.profiles.get(ORG, 'box-office'))?.greeting === 'Hello');
      await a.profiles.put(profile('box-office', 'Welcome back'));
      await waitFor(
        async () => (await b.profiles.get(ORG, 'box-office'))?.greeting === 'Welcome back',
      );
      await b.profiles.delete(ORG, 'box-office');
      expect(await b.profiles.get(ORG, 'box-office')).to.equal(undefined); // its own write: at once
      await waitFor(async () => (await a.profiles.get(ORG, 'box-office')) === undefined);
    });

    it('a knowledge catalog is read once, and a collection made on another replica is seen', async () => {
      const { a, b } = await twoReplicas();
      expect(await b.knowledge.listCollections(ORG)).to.deep.equal([]);
      const reads = b.reads.listCollections;
      await b.knowledge.listCollections(ORG);
      expect(b.reads.listCollections).to.equal(reads);
      await a.knowledge.createCollection(collection('faq'));
      await waitFor(async () => (await b.knowledge.listCollections(ORG)).length === 1);
      await a.knowledge.upsertDocuments(ORG, 'faq', [
        {
          organization: ORG,
          collection: 'faq',
          id: 'hours',
          kind: 'articles',
          fields: { question: 'Hours?', answer: 'Open 9 to 5.' },
          chunks: ['Hours? Open 9 to 5.'],
          updatedAt: '2026-11-20T10:00:00.000Z',
        },
      ]);
      await waitFor(async () => (await b.knowledge.listCollections(ORG))[0]!.documentCount === 1);
    });

    it('with a TTL of 0 every read goes to the store', async () => {
      const { a } = await twoReplicas(0);
      await a.profiles.put(profile('box-office', 'Hello'));
      await a.profiles.get(ORG, 'box-office');
      await a.profiles.get(ORG, 'box-office');
      expect(a.reads.list).to.equal(2);
    });
  },
);

describe('OrganizationCache', () => {
  it('shares one read between concurrent misses', async () => {
    const cache = new OrganizationCache<number>(60_000);
    let loads = 0;
    const load = async () => {
      loads++;
      await new Promise((resolve) => setTimeout(resolve, 20));
      return loads;
    };
    const values = await Promise.all([1, 2, 3].map(() => cache.get(ORG, load)));
    expect(values).to.deep.equal([1, 1, 1]);
    expect(loads).to.equal(1);
  });

  it('does not keep a read that started before a drop (it may have missed the change)', async () => {
    const cache = new OrganizationCache<string>(60_000);
    let release!: (value: string) => void;
    const stale = cache.get(ORG, () => new Promise<string>((resolve) => (release = resolve)));
    cache.drop(ORG);
    release('before the change');
    expect(await stale).to.equal('before the change');
    expect(await cache.get(ORG, async () => 'after the change')).to.equal('after the change');
  });

  it('reads again after the TTL', async () => {
    const cache = new OrganizationCache<number>(30);
    let loads = 0;
    await cache.get(ORG, async () => ++loads);
    await cache.get(ORG, async () => ++loads);
    expect(loads).to.equal(1);
    await new Promise((resolve) => setTimeout(resolve, 40));
    await cache.get(ORG, async () => ++loads);
    expect(loads).to.equal(2);
  });
});
