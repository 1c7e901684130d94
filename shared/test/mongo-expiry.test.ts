import { expect } from 'chai';
import type { Collection } from 'mongodb';
import { ensureExpiryIndex, type MongoConnection } from '../src/adapters/mongo';
import { endpointOf, freshMongoDatabase, waitFor } from '../src/testing';

type Expiring = { _id: string; expiresAt: Date };

describe('ensureExpiryIndex on the MongoDB server in use', function () {
  const fixture = freshMongoDatabase('test_expiry');
  let mongo: MongoConnection;
  let collection: Collection<Expiring>;

  beforeEach(async function () {
    if (!endpointOf('mongo')) this.skip();
    mongo = await fixture.create();
    collection = mongo.db.collection<Expiring>('expiring');
  });

  afterEach(async function () {
    if (mongo) await fixture.destroy!(mongo);
  });

  async function expiryIndex() {
    return (await collection.indexes()).find((index) => index.name === 'expiring_at');
  }

  it('removes documents once their expiry has passed, and keeps the others', async function () {
    const how = await ensureExpiryIndex(collection, 'expiresAt', 'expiring_at', 100);
    await collection.insertMany([
      { _id: 'past', expiresAt: new Date(Date.now() - 1000) },
      { _id: 'future', expiresAt: new Date(Date.now() + 3_600_000) },
    ]);
    if (how === 'ttl-index') {
      // MongoDB's own monitor removes them (once a minute): the index is what it needs.
      expect((await expiryIndex())?.expireAfterSeconds).to.equal(0);
      return;
    }
    await waitFor(async () => (await collection.countDocuments({ _id: 'past' })) === 0, 5000);
    expect(await collection.countDocuments({ _id: 'future' })).to.equal(1);
  });

  it('replaces a plain index on the field from an earlier layout', async function () {
    await collection.createIndex({ expiresAt: 1 }, { name: 'expiring_at' });
    const how = await ensureExpiryIndex(collection, 'expiresAt', 'expiring_at', 100);
    const index = await expiryIndex();
    expect(index?.key).to.deep.equal({ expiresAt: 1 });
    if (how === 'ttl-index') expect(index?.expireAfterSeconds).to.equal(0);
  });
});
