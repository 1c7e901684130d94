import { expect } from 'chai';
import { AppError, connectMongo, type MongoConnection } from '@switchyard/shared';
import {
  contractSuite,
  endpointOf,
  freshMongoDatabase,
  silentLogger,
  uniqueName,
} from '@switchyard/shared/testing';
import { DurableQuota } from '../src/metering/durable-quota';
import {
  ensureIndexes,
  InMemoryApiKeyStore,
  InMemoryOrganizationStore,
  InMemoryQuotaTallyStore,
  MongoApiKeyStore,
  MongoOrganizationStore,
  MongoQuotaTallyStore,
  InMemoryTeamStore,
  MongoTeamStore,
  type ApiKeyRecord,
  type ApiKeyStore,
  type Organization,
  type OrganizationStore,
  type QuotaTallyStore,
  type TeamRecord,
  type TeamStore,
} from '../src/store';

interface WithMongo<T> {
  store: T;
  mongo?: MongoConnection;
}

function mongoFixture<T>(make: (mongo: MongoConnection) => T) {
  return {
    async create(): Promise<WithMongo<T>> {
      const mongo = await connectMongo(
        endpointOf('mongo')!,
        uniqueName('gw_stores'),
        silentLogger(),
      );
      await ensureIndexes(mongo.db);
      return { store: make(mongo), mongo };
    },
    async destroy({ mongo }: WithMongo<T>) {
      await mongo?.db.dropDatabase();
      await mongo?.close();
    },
  };
}

async function expectConflict(work: Promise<unknown>): Promise<void> {
  const error = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).to.be.instanceOf(AppError);
  expect((error as AppError).code).to.equal('conflict');
}

const org = (id: string, quota = 100): Organization => ({
  id,
  name: `Org ${id}`,
  monthlyTokenQuota: quota,
  thresholdShares: [0.9, 1],
  hardQuota: true,
  rateLimits: { requestsPerMinute: 60, tokensPerMinute: 1000 },
  createdAt: '2026-11-01T00:00:00.000Z',
});

contractSuite<WithMongo<OrganizationStore>>(
  'OrganizationStore',
  {
    memory: { create: async () => ({ store: new InMemoryOrganizationStore() }) },
    mongo: mongoFixture((m) => new MongoOrganizationStore(m.db)),
  },
  (subject) => {
    it('creates, gets and lists by id', async () => {
      await subject().store.create(org('b'));
      await subject().store.create(org('a'));
      expect(await subject().store.get('a')).to.deep.equal(org('a'));
      expect(await subject().store.get('zz')).to.equal(undefined);
      expect((await subject().store.list()).map((o) => o.id)).to.deep.equal(['a', 'b']);
    });

    it('refuses a second organization with the same id, also when created concurrently', async () => {
      await subject().store.create(org('dup'));
      await expectConflict(subject().store.create(org('dup', 5)));
      const results = await Promise.allSettled(
        Array.from({ length: 5 }, () => subject().store.create(org('race'))),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).to.have.length(1);
      expect((await subject().store.get('dup'))!.monthlyTokenQuota).to.equal(100);
    });

    it('replaces settings and keeps createdAt; unknown ids give undefined', async () => {
      await subject().store.create(org('r'));
      const replaced = await subject().store.replace({
        ...org('r', 7),
        createdAt: '2030-01-01T00:00:00.000Z',
        hardQuota: false,
      });
      expect(replaced).to.deep.equal({ ...org('r', 7), hardQuota: false });
      expect(await subject().store.get('r')).to.deep.equal(replaced);
      expect(await subject().store.replace(org('missing'))).to.equal(undefined);
    });
  },
);

const key = (
  keyId: string,
  hash: string,
  organization = 'acme',
  createdAt = '2026-11-01T00:00:00.000Z',
): ApiKeyRecord => ({
  keyId,
  organization,
  name: 'ci',
  hash,
  createdAt,
});

contractSuite<WithMongo<ApiKeyStore>>(
  'ApiKeyStore',
  {
    memory: { create: async () => ({ store: new InMemoryApiKeyStore() }) },
    mongo: mongoFixture((m) => new MongoApiKeyStore(m.db)),
  },
  (subject) => {
    it('finds keys by hash and by id, and lists an organization oldest first', async () => {
      await subject().store.insert(key('key_2', 'h2', 'acme', '2026-11-02T00:00:00.000Z'));
      await subject().store.insert(key('key_1', 'h1'));
      await subject().store.insert(key('key_3', 'h3', 'other'));
      expect(await subject().store.findByHash('h1')).to.deep.equal(key('key_1', 'h1'));
      expect(await subject().store.findById('key_3')).to.deep.equal(key('key_3', 'h3', 'other'));
      expect(await subject().store.findByHash('nope')).to.equal(undefined);
      expect((await subject().store.listByOrganization('acme')).map((k) => k.keyId)).to.deep.equal([
        'key_1',
        'key_2',
      ]);
    });

    it('refuses a duplicate hash or key id', async () => {
      await subject().store.insert(key('key_1', 'h1'));
      await expectConflict(subject().store.insert(key('key_other', 'h1')));
      await expectConflict(subject().store.insert(key('key_1', 'h_other')));
    });

    it('revokes, never postponing an earlier revocation', async () => {
      await subject().store.insert(key('key_1', 'h1'));
      const later = '2026-12-01T00:00:00.000Z';
      const earlier = '2026-11-15T00:00:00.000Z';
      expect((await subject().store.revoke('key_1', later))!.revokedAt).to.equal(later);
      expect((await subject().store.revoke('key_1', earlier))!.revokedAt).to.equal(earlier);
      expect((await subject().store.revoke('key_1', later))!.revokedAt).to.equal(earlier);
      expect((await subject().store.findByHash('h1'))!.revokedAt).to.equal(earlier);
      expect(await subject().store.revoke('key_unknown', later)).to.equal(undefined);
    });

    it('sets scopes, removes those given as null, and finds the key changed by hash', async () => {
      await subject().store.insert(key('key_1', 'h1'));
      const scoped = {
        models: ['gpt-4o-mini'],
        routes: ['/v1/*'],
        expiresAt: '2027-01-01T00:00:00.000Z',
      };
      expect(await subject().store.update('key_1', scoped)).to.deep.equal({
        ...key('key_1', 'h1'),
        ...scoped,
      });
      const changed = await subject().store.update('key_1', {
        name: 'app',
        routes: null,
        expiresAt: '2027-02-01T00:00:00.000Z',
      });
      const expected = {
        ...key('key_1', 'h1'),
        name: 'app',
        models: ['gpt-4o-mini'],
        expiresAt: '2027-02-01T00:00:00.000Z',
      };
      expect(changed).to.deep.equal(expected);
      expect(await subject().store.findByHash('h1')).to.deep.equal(expected);
      expect(await subject().store.update('key_unknown', { name: 'x' })).to.equal(undefined);
    });
  },
);

contractSuite<MongoConnection>(
  'Gateway account stores, the earlier MongoDB layout',
  { mongo: freshMongoDatabase('gw_layout') },
  (mongo) => {
    it('is moved at start: keys keep authenticating and stay revoked, organizations are found', async () => {
      const revoked = { ...key('key_2', 'h2'), revokedAt: '2026-11-15T00:00:00.000Z' };
      await mongo()
        .db.collection('organizations')
        .insertOne({ ...org('acme') });
      await mongo()
        .db.collection('api_keys')
        .insertMany([{ ...key('key_1', 'h1') }, { ...revoked }]);
      await Promise.all([ensureIndexes(mongo().db), ensureIndexes(mongo().db)]);
      const keys = new MongoApiKeyStore(mongo().db);
      expect(await keys.findByHash('h1')).to.deep.equal(key('key_1', 'h1'));
      expect(await keys.findByHash('h2')).to.deep.equal(revoked);
      expect(await new MongoOrganizationStore(mongo().db).get('acme')).to.deep.equal(org('acme'));
      await expectConflict(keys.insert(key('key_1', 'h_other')));
      expect(await mongo().db.collection('api_keys').countDocuments()).to.equal(0);
    });
  },
);

contractSuite<WithMongo<QuotaTallyStore>>(
  'QuotaTallyStore (hard-quota tallies)',
  {
    memory: { create: async () => ({ store: new InMemoryQuotaTallyStore() }) },
    mongo: mongoFixture((m) => new MongoQuotaTallyStore(m.db)),
  },
  (subject) => {
    it("totals an organization's period over every writer, with given-back tokens subtracted", async () => {
      const { store } = subject();
      await store.add('w1', 'b1', [
        { organization: 'org_a', period: '2026-11', tokens: 100 },
        { organization: 'org_b', period: '2026-11', tokens: 1000 },
        { organization: 'org_a', period: '2026-10', tokens: 1000 },
      ]);
      await store.add('w2', 'b1', [{ organization: 'org_a', period: '2026-11', tokens: 50 }]);
      await store.add('w1', 'b2', [{ organization: 'org_a', period: '2026-11', tokens: -58 }]);
      expect(await store.total('org_a', '2026-11')).to.equal(92);
      expect(await store.total('org_b', '2026-11')).to.equal(1000);
      expect(await store.total('org_c', '2026-11')).to.equal(0);
    });

    it('applies a batch written twice (a retried write) once', async () => {
      const { store } = subject();
      const batch = [{ organization: 'org_a', period: '2026-11', tokens: 10 }];
      await store.add('w1', 'b1', batch);
      await store.add('w1', 'b1', batch);
      await store.add('w1', 'b2', batch);
      expect(await store.total('org_a', '2026-11')).to.equal(20);
    });

    it('applies the rest of a batch retried after only its first tally was written', async () => {
      const { store } = subject();
      const first = { organization: 'org_a', period: '2026-11', tokens: 10 };
      await store.add('w1', 'b1', [first]);
      await store.add('w1', 'b1', [
        first,
        { organization: 'org_b', period: '2026-11', tokens: 7 },
        { organization: 'org_c', period: '2026-11', tokens: 5 },
      ]);
      expect(await store.total('org_a', '2026-11')).to.equal(10);
      expect(await store.total('org_b', '2026-11')).to.equal(7);
      expect(await store.total('org_c', '2026-11')).to.equal(5);
    });

    it('sums many concurrent additions of one process exactly, in few writes', async () => {
      const { store } = subject();
      let writes = 0;
      const counted: QuotaTallyStore = {
        add: (...args) => (writes++, store.add(...args)),
        total: (o, p) => store.total(o, p),
      };
      const durable = new DurableQuota(counted);
      await Promise.all(
        Array.from({ length: 50 }, (_, i) => durable.add(i % 2 ? 'org_a' : 'org_b', '2026-11', 3)),
      );
      expect(await durable.total('org_a', '2026-11')).to.equal(75);
      expect(await durable.total('org_b', '2026-11')).to.equal(75);
      expect(writes, 'writes for 50 concurrent additions').to.be.at.most(2);
    });

    it('writes at most once per linger under steady additions, not once per round trip', async () => {
      const { store } = subject();
      let writes = 0;
      const counted: QuotaTallyStore = {
        add: async (...args) => {
          writes++;
          await new Promise((resolve) => setTimeout(resolve, 5)); // a write's round trip
          return store.add(...args);
        },
        total: (o, p) => store.total(o, p),
      };
      const durable = new DurableQuota(counted, 50);
      const added: Array<Promise<void>> = [];
      const startedAt = Date.now();
      while (Date.now() - startedAt < 300) {
        added.push(durable.add('org_a', '2026-11', 1));
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
      await Promise.all(added);
      expect(writes, `writes for ${added.length} additions in 300 ms`).to.be.at.most(8);
      expect(await durable.total('org_a', '2026-11')).to.equal(added.length);
    });

    it('writes changes within the linger, together, and what is left at close', async () => {
      const { store } = subject();
      const written: Array<{ tokens: number[]; at: number }> = [];
      const counted: QuotaTallyStore = {
        add: (w, b, deltas) => (
          written.push({ tokens: deltas.map((d) => d.tokens), at: Date.now() }),
          store.add(w, b, deltas)
        ),
        total: (o, p) => store.total(o, p),
      };
      const lingering = new DurableQuota(counted, 150);
      const addedAt = Date.now();
      await Promise.all([
        lingering.add('org_a', '2026-11', 100), // a reservation
        lingering.add('org_a', '2026-11', -40), // its settlement
        lingering.add('org_a', '2026-11', 100), // the next call's reservation
      ]);
      expect(written.map((w) => w.tokens)).to.deep.equal([[160]]);
      expect(written[0]!.at - addedAt, 'lingered').to.be.at.least(140);
      // A linger longer than the test: close writes what is pending.
      const carried = new DurableQuota(counted, 60_000);
      void carried.add('org_a', '2026-11', -5);
      await carried.close();
      expect(written.map((w) => w.tokens)).to.deep.equal([[160], [-5]]);
      expect(await carried.total('org_a', '2026-11')).to.equal(155);
    });
  },
);

const team = (teamId: string, organization = 'acme', createdAt = '2026-11-01T00:00:00.000Z') =>
  ({ teamId, organization, name: `team ${teamId}`, createdAt }) satisfies TeamRecord;

contractSuite<WithMongo<TeamStore>>(
  'TeamStore',
  {
    memory: { create: async () => ({ store: new InMemoryTeamStore() }) },
    mongo: mongoFixture((m) => new MongoTeamStore(m.db)),
  },
  (subject) => {
    it('gets teams by id, lists an organization oldest first, refuses a duplicate id', async () => {
      await subject().store.insert(team('team_2', 'acme', '2026-11-02T00:00:00.000Z'));
      await subject().store.insert(team('team_1'));
      await subject().store.insert(team('team_3', 'other'));
      expect(await subject().store.get('team_3')).to.deep.equal(team('team_3', 'other'));
      expect(await subject().store.get('nope')).to.equal(undefined);
      const listed = await subject().store.listByOrganization('acme');
      expect(listed.map((t) => t.teamId)).to.deep.equal(['team_1', 'team_2']);
      await expectConflict(subject().store.insert(team('team_1', 'other')));
    });

    it('renames, sets and removes a budget, deletes once', async () => {
      await subject().store.insert(team('team_1'));
      const budget = { tokens: 5000, cost: 2.5, period: 'week' as const };
      expect(await subject().store.update('team_1', { budget })).to.deep.equal({
        ...team('team_1'),
        budget,
      });
      const renamed = await subject().store.update('team_1', { name: 'search', budget: null });
      expect(renamed).to.deep.equal({ ...team('team_1'), name: 'search' });
      expect(await subject().store.get('team_1')).to.deep.equal(renamed);
      expect(await subject().store.update('nope', { name: 'x' })).to.equal(undefined);
      expect(await subject().store.delete('team_1')).to.equal(true);
      expect(await subject().store.delete('team_1')).to.equal(false);
      expect(await subject().store.get('team_1')).to.equal(undefined);
    });
  },
);
