import { expect } from 'chai';
import { connectMongo, type MongoConnection } from '@switchyard/shared';
import { contractSuite, endpointOf, silentLogger, uniqueName } from '@switchyard/shared/testing';
import type { CatalogItem, UserInteraction } from '../src/model/types';
import {
  InMemoryInteractionStore,
  InMemoryItemStore,
  InMemoryModelSnapshotStore,
  MongoInteractionStore,
  MongoItemStore,
  MongoModelSnapshotStore,
  type InteractionStore,
  type InteractionToStore,
  type ItemStore,
  type ModelSnapshotStore,
} from '../src/store';

interface Stores {
  items: ItemStore;
  interactions: InteractionStore;
  snapshots: ModelSnapshotStore;
}

/** One backend per test; open() gives store instances on the same data (a second replica, a restart). */
interface Backend {
  open(): Promise<Stores>;
  cleanup(): Promise<void>;
}

const fixtures = {
  memory: {
    async create(): Promise<Backend> {
      // In memory the data lives in the instances, so "another instance" is the same one.
      const stores = {
        items: new InMemoryItemStore(),
        interactions: new InMemoryInteractionStore(),
        snapshots: new InMemoryModelSnapshotStore(),
      };
      return { open: async () => stores, cleanup: async () => undefined };
    },
  },
  mongo: {
    async create(): Promise<Backend> {
      const database = uniqueName('test_recommendation');
      const connections: MongoConnection[] = [];
      return {
        async open() {
          const connection = await connectMongo(endpointOf('mongo')!, database, silentLogger());
          connections.push(connection);
          const items = new MongoItemStore(connection.db);
          const interactions = new MongoInteractionStore(connection.db);
          const snapshots = new MongoModelSnapshotStore(connection.db);
          await items.ensureIndexes();
          await interactions.ensureIndexes();
          await snapshots.ensureIndexes();
          return { items, interactions, snapshots };
        },
        async cleanup() {
          if (connections[0]) await connections[0].db.dropDatabase();
          await Promise.all(connections.map((c) => c.close()));
        },
      };
    },
    destroy: (backend: Backend) => backend.cleanup(),
  },
};

function item(itemId: string, overrides: Partial<CatalogItem> = {}): CatalogItem {
  return {
    itemId,
    catalog: 'ecommerce',
    title: `Item ${itemId}`,
    categories: ['outdoor', 'camping'],
    attributesJson: '{"price":12.5}',
    available: true,
    updatedAt: '2026-01-01T00:00:00.000Z',
    ...overrides,
  };
}

let clock = Date.UTC(2026, 0, 1);
function interaction(
  userId: string,
  itemId: string,
  type: UserInteraction['type'] = 'view',
  value = 0,
): UserInteraction {
  return { userId, itemId, type, value, timestamp: clock++ };
}

const retryable = (i: UserInteraction): InteractionToStore => ({
  ...i,
  dedupeKey: JSON.stringify([i.userId, i.itemId, i.type, i.value, i.timestamp]),
});

/** Each user's interactions in order, users sorted: what a scan promises. */
function byUser(log: readonly UserInteraction[]): Array<[string, UserInteraction[]]> {
  const users = new Map<string, UserInteraction[]>();
  for (const i of log) users.set(i.userId, [...(users.get(i.userId) ?? []), i]);
  return [...users].sort(([a], [b]) => a.localeCompare(b));
}

async function all(iterable: AsyncIterable<UserInteraction>): Promise<UserInteraction[]> {
  const out: UserInteraction[] = [];
  for await (const value of iterable) out.push(value);
  return out;
}

contractSuite<Backend>('ItemStore', fixtures, (backend) => {
  it('upserts idempotently by item id and reads items back whole', async () => {
    const { items } = await backend().open();
    expect(await items.upsert('org_a', [item('a'), item('b')])).to.equal(2);
    expect(
      await items.upsert('org_a', [
        item('a', { title: 'Renamed' }),
        item('a', { title: 'Renamed twice' }),
      ]),
    ).to.equal(1);
    expect(await items.get('org_a', 'a')).to.deep.equal(item('a', { title: 'Renamed twice' }));
    expect(await items.get('org_a', 'b')).to.deep.equal(item('b'));
    expect(await items.upsert('org_a', [])).to.equal(0);
  });

  it('keeps organizations apart', async () => {
    const { items } = await backend().open();
    await items.upsert('org_a', [item('a')]);
    await items.upsert('org_b', [item('a', { title: 'B' })]);
    expect((await items.get('org_a', 'a'))?.title).to.equal('Item a');
    expect((await items.get('org_b', 'a'))?.title).to.equal('B');
    expect(await items.get('org_c', 'a')).to.equal(undefined);
    expect(await items.delete('org_c', 'a')).to.equal(false);
    expect([...(await items.getMany('org_b', ['a', 'x'])).keys()]).to.deep.equal(['a']);
  });

  it('returns copies: changing a result does not change the store', async () => {
    const { items } = await backend().open();
    await items.upsert('org_a', [item('a')]);
    (await items.get('org_a', 'a'))!.categories.push('mutated');
    expect((await items.get('org_a', 'a'))?.categories).to.deep.equal(['outdoor', 'camping']);
  });

  it('finds the known items among many ids and deletes once', async () => {
    const { items } = await backend().open();
    await items.upsert('org_a', [item('a'), item('b'), item('c')]);
    const found = await items.getMany('org_a', ['c', 'a', 'missing', 'a']);
    expect([...found.keys()].sort()).to.deep.equal(['a', 'c']);
    expect(found.get('c')).to.deep.equal(item('c'));
    expect(await items.delete('org_a', 'b')).to.equal(true);
    expect(await items.delete('org_a', 'b')).to.equal(false);
    expect(await items.get('org_a', 'b')).to.equal(undefined);
  });

  it('replaces a catalog batch of existing items (more than a server takes in one command)', async () => {
    const { items } = await backend().open();
    const batch = Array.from({ length: 150 }, (_, i) => item(`bulk${i}`));
    expect(await items.upsert('org_a', batch)).to.equal(150);
    expect(
      await items.upsert(
        'org_a',
        batch.map((i) => ({ ...i, title: 'Again' })),
      ),
    ).to.equal(150);
    expect((await items.getMany('org_a', ['bulk0', 'bulk149'])).get('bulk149')?.title).to.equal(
      'Again',
    );
  });

  it('shows the catalog to a second instance and survives concurrent upserts of the same new ids', async () => {
    const [one, two] = [await backend().open(), await backend().open()];
    await Promise.all([
      one.items.upsert('org_a', [item('x'), item('y')]),
      two.items.upsert('org_a', [item('y'), item('x')]),
    ]);
    expect((await two.items.getMany('org_a', ['x', 'y'])).size).to.equal(2);
    expect(await (await backend().open()).items.get('org_a', 'x')).to.deep.equal(item('x'));
  });
});

contractSuite<Backend>('InteractionStore', fixtures, (backend) => {
  it("appends, counts and scans user by user, each user's oldest first, per organization", async () => {
    const { interactions } = await backend().open();
    const log = [
      interaction('u1', 'a'),
      interaction('u2', 'a', 'rating', 4),
      interaction('u1', 'b', 'purchase'),
    ];
    expect(await interactions.append('org_a', log)).to.deep.equal(log);
    await interactions.append('org_b', [interaction('u9', 'z')]);
    expect(await interactions.count('org_a')).to.equal(3);
    expect(await interactions.count('org_c')).to.equal(0);
    expect(byUser(await all(interactions.scan('org_a')))).to.deep.equal(byUser(log));
    expect((await interactions.organizations()).sort()).to.deep.equal(['org_a', 'org_b']);
  });

  it('drops retried interactions by their dedupe key, within a batch and across batches, but keeps keyless repeats', async () => {
    const { interactions } = await backend().open();
    const first = interaction('u1', 'a');
    const second = interaction('u1', 'b');
    expect(await interactions.append('org_a', [retryable(first), retryable(first)])).to.deep.equal([
      first,
    ]);
    expect(await interactions.append('org_a', [retryable(first), retryable(second)])).to.deep.equal(
      [second],
    );
    expect(await interactions.append('org_b', [retryable(first)])).to.deep.equal([first]);
    const now = interaction('u1', 'c');
    expect(await interactions.append('org_a', [now, now])).to.have.length(2);
    expect(await interactions.count('org_a')).to.equal(4);
  });

  it('stores a retried batch once when two replicas store it at the same time', async () => {
    const [one, two] = [await backend().open(), await backend().open()];
    const batch = Array.from({ length: 20 }, (_, i) =>
      retryable(interaction(`u${i % 4}`, `item${i}`)),
    );
    const [a, b] = await Promise.all([
      one.interactions.append('org_a', batch),
      two.interactions.append('org_a', batch),
    ]);
    expect(a.length + b.length).to.equal(20);
    expect(await one.interactions.count('org_a')).to.equal(20);
  });

  it('appends a batch to many existing users (more than a server takes in one command)', async () => {
    const { interactions } = await backend().open();
    const users = Array.from({ length: 150 }, (_, i) => `bulk${i}`);
    await interactions.append(
      'org_a',
      users.map((u) => retryable(interaction(u, 'a'))),
    );
    expect(
      await interactions.append(
        'org_a',
        users.map((u) => retryable(interaction(u, 'b'))),
      ),
    ).to.have.length(150);
    expect(await interactions.count('org_a')).to.equal(300);
    expect((await interactions.forUser('org_a', 'bulk149')).map((i) => i.itemId)).to.deep.equal([
      'a',
      'b',
    ]);
  });

  it("reads one user's interactions, oldest first, from a second instance", async () => {
    const { interactions } = await backend().open();
    await interactions.append('org_a', [
      interaction('u1', 'A'),
      interaction('u2', 'B'),
      interaction('u1', 'C'),
    ]);
    await interactions.append('org_b', [interaction('u1', 'Z')]);
    const other = (await backend().open()).interactions;
    expect((await other.forUser('org_a', 'u1')).map((i) => i.itemId)).to.deep.equal(['A', 'C']);
    expect(await other.forUser('org_a', 'nobody')).to.deep.equal([]);
  });

  it('finds catalog items sharing a category, within one catalog and organization', async () => {
    const { items } = await backend().open();
    const base = {
      title: 't',
      attributesJson: '{}',
      available: true,
      updatedAt: '2026-01-01T00:00:00.000Z',
    };
    await items.upsert('org_a', [
      { ...base, itemId: 'rock1', catalog: 'ticketing', categories: ['rock', 'live'] },
      { ...base, itemId: 'jazz1', catalog: 'ticketing', categories: ['jazz'] },
      { ...base, itemId: 'rockshirt', catalog: 'ecommerce', categories: ['rock'] },
    ]);
    await items.upsert('org_b', [
      { ...base, itemId: 'rock2', catalog: 'ticketing', categories: ['rock'] },
    ]);
    const found = await (
      await backend().open()
    ).items.withCategories('org_a', 'ticketing', ['rock', 'blues'], 10);
    expect(found.map((i) => i.itemId)).to.deep.equal(['rock1']);
  });

  it('browses available items, of one catalog when asked, within the organization and the limit', async () => {
    const { items } = await backend().open();
    const base = {
      title: 't',
      attributesJson: '{}',
      categories: [],
      updatedAt: '2026-01-01T00:00:00.000Z',
    };
    await items.upsert('org_a', [
      { ...base, itemId: 'e1', catalog: 'ecommerce', available: true },
      { ...base, itemId: 'e2', catalog: 'ecommerce', available: false },
      { ...base, itemId: 't1', catalog: 'ticketing', available: true },
      { ...base, itemId: 't2', catalog: 'ticketing', available: true },
    ]);
    await items.upsert('org_b', [{ ...base, itemId: 'b1', catalog: 'ecommerce', available: true }]);
    const other = (await backend().open()).items;
    const ids = (found: CatalogItem[]) => found.map((i) => i.itemId).sort();
    expect(ids(await other.browse('org_a', undefined, 10))).to.deep.equal(['e1', 't1', 't2']);
    expect(ids(await other.browse('org_a', 'ecommerce', 10))).to.deep.equal(['e1']);
    expect(await other.browse('org_a', 'ticketing', 1)).to.have.length(1);
    expect(await other.browse('org_c', undefined, 10)).to.deep.equal([]);
  });

  it('streams a large log without loading it at once', async () => {
    const { interactions } = await backend().open();
    const log = Array.from({ length: 2500 }, (_, i) => interaction(`u${i % 50}`, `i${i % 97}`));
    await interactions.append('org_a', log);
    const previous = new Map<string, number>();
    let seen = 0;
    for await (const i of interactions.scan('org_a')) {
      expect(i.timestamp).to.be.greaterThan(previous.get(i.userId) ?? -Infinity);
      previous.set(i.userId, i.timestamp);
      seen++;
    }
    expect(seen).to.equal(2500);
    expect(previous.size).to.equal(50);
  });
});

/** Bytes that change with the version and span several GridFS chunks (255 kB each). */
function blob(version: number, size = 700_000): Buffer {
  return Buffer.from(Array.from({ length: size }, (_, i) => (i * 31 + version) % 256));
}

contractSuite('ModelSnapshotStore', fixtures, (backend) => {
  it('has nothing before the first publish', async () => {
    const store = (await backend().open()).snapshots;
    expect(await store.latestVersion('org_a')).to.equal(0);
    expect(await store.latest('org_a')).to.equal(undefined);
  });

  it('serves the newest version, byte for byte, to another instance, per organization', async () => {
    const store = (await backend().open()).snapshots;
    expect(await store.publish('org_a', { version: 1, blob: blob(1) })).to.equal(true);
    expect(await store.publish('org_a', { version: 2, blob: blob(2) })).to.equal(true);
    expect(await store.publish('org_b', { version: 1, blob: blob(9, 10) })).to.equal(true);
    const other = (await backend().open()).snapshots;
    expect(await other.latestVersion('org_a')).to.equal(2);
    const latest = await other.latest('org_a');
    expect(latest?.version).to.equal(2);
    expect(latest?.blob.equals(blob(2))).to.equal(true);
    expect((await other.latest('org_b'))?.blob.equals(blob(9, 10))).to.equal(true);
  });

  it('lets only the first publisher of a version win, and never goes back', async () => {
    const [one, two] = [(await backend().open()).snapshots, (await backend().open()).snapshots];
    const results = await Promise.all([
      one.publish('org_a', { version: 1, blob: blob(1) }),
      two.publish('org_a', { version: 1, blob: blob(5) }),
    ]);
    expect(results.filter(Boolean)).to.have.length(1);
    expect(await one.publish('org_a', { version: 1, blob: blob(7) })).to.equal(false);
    await one.publish('org_a', { version: 3, blob: blob(3) });
    expect(await two.publish('org_a', { version: 2, blob: blob(2) })).to.equal(false);
    expect(await two.latestVersion('org_a')).to.equal(3);
  });

  it('keeps serving the newest after older versions are pruned', async () => {
    const store = (await backend().open()).snapshots;
    for (let version = 1; version <= 5; version++)
      await store.publish('org_a', { version, blob: blob(version, 1000) });
    expect((await store.latest('org_a'))?.blob.equals(blob(5, 1000))).to.equal(true);
  });
});

contractSuite('ModelSnapshotStore training lease', fixtures, (backend) => {
  it('lets one replica train an organization at a time, until it releases or the lease expires', async () => {
    const [one, two] = [(await backend().open()).snapshots, (await backend().open()).snapshots];
    expect(await one.claimTraining('org_a', 'replica-1', 60_000)).to.equal(true);
    expect(await two.claimTraining('org_a', 'replica-2', 60_000)).to.equal(false);
    expect(await two.claimTraining('org_b', 'replica-2', 60_000), 'another organization').to.equal(
      true,
    );
    expect(await one.claimTraining('org_a', 'replica-1', 60_000), 'the owner renews').to.equal(
      true,
    );
    await two.releaseTraining('org_a', 'replica-2'); // not the owner: no effect
    expect(await two.claimTraining('org_a', 'replica-2', 60_000)).to.equal(false);
    await one.releaseTraining('org_a', 'replica-1');
    expect(await two.claimTraining('org_a', 'replica-2', 50)).to.equal(true);
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(
      await one.claimTraining('org_a', 'replica-1', 60_000),
      'an expired lease is free',
    ).to.equal(true);
  });

  it('gives a contested lease to exactly one of two replicas', async () => {
    const [one, two] = [(await backend().open()).snapshots, (await backend().open()).snapshots];
    const claims = await Promise.all([
      one.claimTraining('org_a', 'replica-1', 60_000),
      two.claimTraining('org_a', 'replica-2', 60_000),
    ]);
    expect(claims.filter(Boolean)).to.have.length(1);
  });
});
