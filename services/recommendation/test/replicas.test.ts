import { expect } from 'chai';
import {
  connectMongo,
  InMemoryEventBus,
  KafkaEventBus,
  type EventBus,
  type MongoConnection,
} from '@switchyard/shared';
import {
  contractSuite,
  endpointOf,
  silentLogger,
  uniqueName,
  waitFor,
} from '@switchyard/shared/testing';
import type {
  Interaction__Output,
  RecommendResponse,
} from '@switchyard/shared/proto/recommendation/v1';
import { loadRecommendationConfig } from '../src/config';
import { createReplica, type RecommendationStores } from '../src/server';
import { InMemoryInteractionStore } from '../src/store/interactions/memory';
import { InMemoryItemStore } from '../src/store/items/memory';
import { MongoInteractionStore } from '../src/store/interactions/mongo';
import { MongoItemStore } from '../src/store/items/mongo';
import { MongoModelSnapshotStore } from '../src/store/snapshots/mongo';
import { InMemoryModelSnapshotStore } from '../src/store/snapshots/memory';
import { callable, context, interaction, item, recommendRequest } from './fixtures';

type Replica = Awaited<ReturnType<typeof createReplica>>;

/** Two replicas on shared stores and one bus, as two processes of a deployment. */
interface Deployment {
  replicas: [Replica, Replica];
  close(): Promise<void>;
}

/** EASE from the first interaction on, and no automatic rebuild: the tests train when they say so. */
const config = (replicaId: string) =>
  loadRecommendationConfig({
    REPLICA_ID: replicaId,
    RECOMMENDATION_EASE_MIN_INTERACTIONS: '0',
    RECOMMENDATION_REBUILD_DELAY_MS: '3600000',
  });

async function deploy(
  bus: () => Promise<EventBus>,
  stores: () => Promise<RecommendationStores>,
  cleanup: () => Promise<void>,
): Promise<Deployment> {
  const buses = [await bus(), await bus()];
  const replicas = [
    await createReplica({
      config: config(uniqueName('a')),
      bus: buses[0],
      logger: silentLogger(),
      stores: await stores(),
    }),
    await createReplica({
      config: config(uniqueName('b')),
      bus: buses[1],
      logger: silentLogger(),
      stores: await stores(),
    }),
  ] as [Replica, Replica];
  return {
    replicas,
    async close() {
      for (const replica of replicas) await replica.close();
      for (const b of new Set(buses)) await b.close();
      await cleanup();
    },
  };
}

const fixtures = {
  memory: {
    async create(): Promise<Deployment> {
      const bus = new InMemoryEventBus();
      const stores = {
        items: new InMemoryItemStore(),
        interactions: new InMemoryInteractionStore(),
        snapshots: new InMemoryModelSnapshotStore(),
      };
      return deploy(
        async () => bus,
        async () => stores,
        async () => undefined,
      );
    },
    destroy: (deployment: Deployment) => deployment.close(),
  },
  kafka: {
    async create(): Promise<Deployment> {
      const prefix = `${uniqueName('reco')}.`;
      const database = uniqueName('test_recommendation_replicas');
      const connections: MongoConnection[] = [];
      const memory = {
        items: new InMemoryItemStore(),
        interactions: new InMemoryInteractionStore(),
        snapshots: new InMemoryModelSnapshotStore(),
      };
      const bus = async () => {
        const kafka = new KafkaEventBus({
          brokers: endpointOf('kafka')!.split(','),
          clientId: uniqueName('reco'),
          logger: silentLogger(),
          topicPrefix: prefix,
        });
        await kafka.start();
        return kafka;
      };
      const stores = async (): Promise<RecommendationStores> => {
        if (!endpointOf('mongo')) return memory;
        const connection = await connectMongo(endpointOf('mongo')!, database, silentLogger());
        connections.push(connection);
        const opened = {
          items: new MongoItemStore(connection.db),
          interactions: new MongoInteractionStore(connection.db),
          snapshots: new MongoModelSnapshotStore(connection.db),
        };
        await opened.items.ensureIndexes();
        await opened.interactions.ensureIndexes();
        await opened.snapshots.ensureIndexes();
        return opened;
      };
      return deploy(bus, stores, async () => {
        if (connections.length > 0) await connections[0].db.dropDatabase();
        for (const connection of connections) await connection.close();
      });
    },
    destroy: (deployment: Deployment) => deployment.close(),
  },
};

/** Three tastes: outdoor, kitchen, books; 30 users with most of their group's items. */
const ITEMS = [
  'tent',
  'stove',
  'lamp',
  'boots',
  'pan',
  'knife',
  'kettle',
  'novel',
  'poems',
  'atlas',
].map((id, i) =>
  item(id, { categories: [['outdoor', 'kitchen', 'books'][Math.min(2, Math.floor(i / 3.4))]] }),
);
const GROUPS = [
  ['tent', 'stove', 'lamp', 'boots'],
  ['pan', 'knife', 'kettle'],
  ['novel', 'poems', 'atlas'],
];

function history(): Interaction__Output[] {
  const all: Interaction__Output[] = [];
  for (let u = 0; u < 30; u++) {
    const group = GROUPS[u % 3];
    group.forEach((itemId, k) => {
      if ((u + k) % 4 !== 0)
        all.push(interaction(`u${u}`, itemId, k % 2 === 0 ? 'purchase' : 'view'));
    });
  }
  return all;
}

const ctx = context('org_replicas');
const ids = (response: RecommendResponse) => (response.recommendations ?? []).map((r) => r.item_id);

contractSuite('two recommendation replicas', fixtures, (deployment) => {
  async function trainedOnBoth(): Promise<[Replica, Replica]> {
    const [a, b] = deployment().replicas;
    await callable(a.handlers).upsertItems({ items: ITEMS }, ctx);
    const log = history();
    // Half of the traffic reaches each replica.
    await callable(a.handlers).recordInteractions({ interactions: log.slice(0, 30) }, ctx);
    await callable(b.handlers).recordInteractions({ interactions: log.slice(30) }, ctx);
    const info = await callable(a.handlers).rebuildModel({}, ctx);
    expect(info).to.include({ algorithm: 'ease', version: 1, interactions: log.length });
    // B hears of the new version on the bus and loads it from the snapshot store.
    await waitFor(() => b.deps.models.current(ctx.organization!)?.data.version === 1, 20_000);
    return [a, b];
  }

  it('answer identically, for known and unknown users, with and without a current item', async function () {
    this.timeout(60_000);
    const [a, b] = await trainedOnBoth();
    const requests = [
      ...Array.from({ length: 30 }, (_, u) => recommendRequest(`u${u}`)),
      recommendRequest('newcomer'),
      recommendRequest('u1', { current_item_id: 'tent' }),
      recommendRequest('newcomer', { current_item_id: 'pan', num_recommendations: 3 }),
    ];
    for (const request of requests) {
      const [fromA, fromB] = [
        await callable(a.handlers).recommend(request, ctx),
        await callable(b.handlers).recommend(request, ctx),
      ];
      expect(fromB, `${request.user_id} ${request.current_item_id}`).to.deep.equal(fromA);
    }
    // And the model learned the groups: an outdoor user gets the outdoor item they lack first.
    expect(ids(await callable(a.handlers).recommend(recommendRequest('u0'), ctx))[0]).to.equal(
      'tent',
    );
  });

  it("shows a user's new interaction on the other replica within 1 s, and the next model version everywhere", async function () {
    this.timeout(60_000);
    const [a, b] = await trainedOnBoth();
    // Both replicas have the user's profile cached.
    const before = await callable(b.handlers).recommend(recommendRequest('reader'), ctx);
    await callable(a.handlers).recommend(recommendRequest('reader'), ctx);
    expect(before.recommendations!.every((r) => r.reason === 'popular')).to.equal(true);
    // The user buys a book on replica A; replica B's next answer is about books.
    await callable(a.handlers).recordInteractions(
      { interactions: [interaction('reader', 'novel', 'purchase')] },
      ctx,
    );
    const after = await waitFor(async () => {
      const response = await callable(b.handlers).recommend(recommendRequest('reader'), ctx);
      return response.recommendations![0].reason === 'co_occurrence' ? response : undefined;
    }, 1000);
    expect(ids(after).slice(0, 2)).to.have.members(['poems', 'atlas']);
    expect(ids(after)).to.not.include('novel');

    // The book runs out of stock through replica B: replica A stops recommending it.
    const atlasOnA = async () =>
      ids(await callable(a.handlers).recommend(recommendRequest('reader'), ctx)).includes('atlas');
    expect(await atlasOnA()).to.equal(true);
    await callable(b.handlers).upsertItems(
      { items: [item('atlas', { categories: ['books'], available: false })] },
      ctx,
    );
    await waitFor(async () => !(await atlasOnA()), 1000);

    await callable(b.handlers).rebuildModel({}, ctx);
    await waitFor(() => a.deps.models.current(ctx.organization!)?.data.version === 2, 20_000);
    expect(await callable(a.handlers).recommend(recommendRequest('reader'), ctx)).to.deep.equal(
      await callable(b.handlers).recommend(recommendRequest('reader'), ctx),
    );
  });
});

describe('scheduled training with two replicas', () => {
  it('trains once soon after interactions came in on both replicas, and both serve that model', async function () {
    this.timeout(60_000);
    const bus = new InMemoryEventBus();
    const stores = {
      items: new InMemoryItemStore(),
      interactions: new InMemoryInteractionStore(),
      snapshots: new InMemoryModelSnapshotStore(),
    };
    const soon = (id: string) => ({
      ...config(id),
      rebuild: { intervalMs: 60_000, delayMs: 50, minIntervalMs: 0 },
    });
    const a = await createReplica({
      config: soon(uniqueName('a')),
      bus,
      logger: silentLogger(),
      stores,
    });
    const b = await createReplica({
      config: soon(uniqueName('b')),
      bus,
      logger: silentLogger(),
      stores,
    });
    try {
      await callable(a.handlers).upsertItems({ items: ITEMS }, ctx);
      const log = history();
      await Promise.all([
        callable(a.handlers).recordInteractions({ interactions: log.slice(0, 30) }, ctx),
        callable(b.handlers).recordInteractions({ interactions: log.slice(30) }, ctx),
      ]);
      await waitFor(
        () => a.deps.models.current(ctx.organization!) && b.deps.models.current(ctx.organization!),
        20_000,
      );
      await new Promise((resolve) => setTimeout(resolve, 500)); // the other replica's timer has fired too
      expect(await stores.snapshots.latestVersion(ctx.organization!)).to.equal(1);
      expect(a.deps.models.current(ctx.organization!)!.data).to.include({
        version: 1,
        interactions: log.length,
      });
      expect(b.deps.models.current(ctx.organization!)!.data.version).to.equal(1);
    } finally {
      await a.close();
      await b.close();
      await bus.close();
    }
  });
});

describe('training off the serving thread', () => {
  it('answers recommendations while a model trains in the worker thread', async function () {
    this.timeout(120_000);
    const bus = new InMemoryEventBus();
    const replica = await createReplica({
      config: config(uniqueName('w')),
      bus,
      logger: silentLogger(),
    });
    try {
      const catalog = Array.from({ length: 600 }, (_, i) => item(`i${i}`));
      await callable(replica.handlers).upsertItems({ items: catalog.slice(0, 300) }, ctx);
      await callable(replica.handlers).upsertItems({ items: catalog.slice(300) }, ctx);
      // 600 items: EASE inverts a 600 x 600 matrix, which takes far longer than a recommendation.
      for (let u = 0; u < 300; u += 50) {
        const batch: Interaction__Output[] = [];
        for (let v = u; v < u + 50; v++)
          for (let k = 0; k < 12; k++)
            batch.push(interaction(`u${v}`, `i${(v * 7 + k * 13) % 600}`, 'purchase'));
        await callable(replica.handlers).recordInteractions({ interactions: batch }, ctx);
      }
      await callable(replica.handlers).rebuildModel({}, ctx);
      let training = true;
      const rebuild = callable(replica.handlers)
        .rebuildModel({}, ctx)
        .finally(() => (training = false));
      const answered = await callable(replica.handlers).recommend(recommendRequest('u1'), ctx);
      expect(training, 'the answer came while the next model was still training').to.equal(true);
      expect(answered.recommendations).to.have.length(10);
      expect((await rebuild).version).to.equal(2);
    } finally {
      await replica.close();
      await bus.close();
    }
  });
});
