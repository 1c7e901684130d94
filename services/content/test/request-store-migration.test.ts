import { expect } from 'chai';
import { connectMongo, type MongoConnection } from '@switchyard/shared';
import { endpointOf, silentLogger, uniqueName } from '@switchyard/shared/testing';
import { LEASES_COLLECTION, MongoRequestStore, REQUESTS_COLLECTION } from '../src/store';
import { processingRecord } from './store-fixtures';

/** Requests stored before _id keys (ObjectId _ids, identity in an index) are readable and resumable after the upgrade. */
describe('MongoRequestStore upgrade from the layout before _id keys [mongo]', function () {
  let connection: MongoConnection;

  before(async function () {
    if (!endpointOf('mongo')) this.skip();
    connection = await connectMongo(
      endpointOf('mongo')!,
      uniqueName('test_content_upgrade'),
      silentLogger(),
    );
  });

  after(async () => {
    if (!connection) return;
    await connection.db.dropDatabase();
    await connection.close();
  });

  it('keeps finished requests readable and hands processing ones to a sweep', async () => {
    const requests = connection.db.collection(REQUESTS_COLLECTION);
    const leases = connection.db.collection(LEASES_COLLECTION);
    await requests.createIndex(
      { organization: 1, requestId: 1 },
      { unique: true, name: 'organization_request_id' },
    );
    await leases.createIndex(
      { organization: 1, requestId: 1, generation: 1 },
      { unique: true, name: 'organization_request_id_generation' },
    );
    const done = processingRecord({
      status: 'completed',
      result: 'old answer',
      completedAt: '2026-01-01T00:05:00.000Z',
    });
    const pending = processingRecord();
    await requests.insertMany([{ ...done }, { ...pending }]);
    await leases.insertOne({
      organization: pending.organization,
      requestId: pending.requestId,
      generation: 1,
      owner: 'old_replica',
      expiresAt: Date.now() + 60_000,
    });

    const store = new MongoRequestStore(connection.db, { owner: 'new_replica', leaseMs: 60_000 });
    await store.ensureIndexes();
    await store.ensureIndexes(); // a second start changes nothing

    expect((await store.get(done.organization, done.requestId))?.result).to.equal('old answer');
    expect((await store.listProcessing()).map((r) => r.requestId)).to.deep.equal([
      pending.requestId,
    ]);
    const claimed = await store.claimNext();
    expect(claimed?.requestId).to.equal(pending.requestId);
    expect(await store.claimNext()).to.equal(undefined);
    expect(
      await store.finish(pending.organization, pending.requestId, {
        status: 'completed',
        result: 'new',
        totalTokens: 1,
        completedAt: '2026-01-01T00:06:00.000Z',
      }),
    ).to.equal(true);
    expect(await requests.countDocuments({})).to.equal(2);
    expect(await leases.countDocuments({})).to.equal(0);
  });
});
