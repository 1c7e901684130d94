import { expect } from 'chai';
import { MongoClient } from 'mongodb';
import { endpointOf, uniqueName } from '../src/testing';

/**
 * What the stores rely on from the MongoDB server in use, checked on it (MongoDB 7 in compose and
 * Kubernetes; FerretDB on PostgreSQL from deploy/local, patched where it differed: see
 * deploy/local/README.md). Several clients stand for several service replicas.
 */
type Row = { _id: string; version?: number; count?: number; owner?: string | null };

describe('MongoDB server in use: what the stores rely on', function () {
  const CLIENTS = 3;
  let clients: MongoClient[] = [];
  let databaseName: string;

  before(async function () {
    const uri = endpointOf('mongo');
    if (!uri) this.skip();
    clients = await Promise.all(
      Array.from({ length: CLIENTS }, () => MongoClient.connect(uri!, { maxPoolSize: 20 })),
    );
    databaseName = uniqueName('test_engine');
    await collection('documents').insertMany(
      Array.from({ length: 200 }, (_, i) => ({ _id: `d${i}`, version: i })),
    );
    // FerretDB on SQLite, the local engine before PostgreSQL (its plans read `detail=SEARCH ...`),
    // is not a supported engine: it never answers a bulk of 100 updates and then holds up its
    // database, so nothing here runs on it rather than wedge a server others may still share.
    if (/detail=/.test(await planOf({ _id: 'd0' }))) this.skip();
  });

  after(async function () {
    if (clients.length === 0) return;
    await clients[0]!.db(databaseName).dropDatabase();
    await Promise.all(clients.map((client) => client.close()));
  });

  function collection(name: string, client = 0) {
    return clients[client]!.db(databaseName).collection<Row>(name);
  }

  async function planOf(filter: object): Promise<string> {
    const explained = await clients[0]!.db(databaseName).command({
      explain: { find: 'documents', filter },
    });
    return JSON.stringify(explained.queryPlanner);
  }

  // MongoDB: (EXPRESS_)IDHACK or IXSCAN on _id_; FerretDB on PostgreSQL: PostgreSQL's plan.
  const INDEX_PLAN = /IDHACK|IXSCAN|Index Scan|Bitmap Index Scan/;
  const SCAN_PLAN = /COLLSCAN|Seq Scan/;

  it('serves a lookup by _id from the _id index, not a collection scan', async function () {
    const plan = await planOf({ _id: 'd7' });
    expect(plan).to.match(INDEX_PLAN);
    expect(plan).not.to.match(SCAN_PLAN);
  });

  it('serves a lookup by _id from the index when the filter also guards other fields', async function () {
    const plan = await planOf({ _id: 'd7', version: 7 });
    expect(plan).to.match(INDEX_PLAN);
    expect(plan).not.to.match(SCAN_PLAN);
  });

  it('serves $in on _id from the _id index', async function () {
    const plan = await planOf({ _id: { $in: ['d1', 'd2', 'd3'] } });
    expect(plan).to.match(INDEX_PLAN);
    expect(plan).not.to.match(SCAN_PLAN);
    const found = await collection('documents')
      .find({ _id: { $in: ['d1', 'd3', 'missing'] } })
      .toArray();
    expect(found.map((document) => document._id).sort()).to.deep.equal(['d1', 'd3']);
  });

  it('applies one bulk of hundreds of updates of existing documents', async function () {
    const result = await collection('documents').bulkWrite(
      Array.from({ length: 200 }, (_, i) => ({
        updateOne: { filter: { _id: `d${i}` }, update: { $inc: { version: 1 } } },
      })),
      { ordered: false },
    );
    expect(result.modifiedCount).to.equal(200);
    expect((await collection('documents').findOne({ _id: 'd199' }))?.version).to.equal(200);
  });

  it('loses no $inc of one document under concurrent writers', async function () {
    await collection('counters').insertOne({ _id: 'shared', count: 0 });
    const perClient = 100;
    await Promise.all(
      clients.map((_, c) =>
        Promise.all(
          Array.from({ length: perClient }, () =>
            collection('counters', c).updateOne({ _id: 'shared' }, { $inc: { count: 1 } }),
          ),
        ),
      ),
    );
    expect((await collection('counters').findOne({ _id: 'shared' }))?.count).to.equal(
      CLIENTS * perClient,
    );
  });

  it('lets exactly one of concurrent conditional updates claim a document', async function () {
    await collection('claims').insertOne({ _id: 'job', owner: null });
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        collection('claims', i % CLIENTS).updateOne(
          { _id: 'job', owner: null },
          { $set: { owner: `worker-${i}` } },
        ),
      ),
    );
    expect(results.reduce((won, result) => won + result.modifiedCount, 0)).to.equal(1);
  });

  it('runs concurrent upserts of one new _id as one insert and updates, none failing', async function () {
    const results = await Promise.allSettled(
      Array.from({ length: 30 }, (_, i) =>
        collection('upserts', i % CLIENTS).updateOne(
          { _id: 'new' },
          { $inc: { count: 1 } },
          { upsert: true },
        ),
      ),
    );
    expect(results.filter((result) => result.status === 'rejected')).to.deep.equal([]);
    expect((await collection('upserts').findOne({ _id: 'new' }))?.count).to.equal(30);
  });

  it('computes every accumulator of a $group', async function () {
    const totals = await collection('documents')
      .aggregate([
        { $match: { _id: { $in: ['d1', 'd2', 'd3'] } } },
        { $group: { _id: null, documents: { $sum: 1 }, versions: { $sum: '$version' } } },
      ])
      .toArray();
    const before = await collection('documents')
      .find({ _id: { $in: ['d1', 'd2', 'd3'] } })
      .toArray();
    const versions = before.reduce((sum, document) => sum + (document.version ?? 0), 0);
    expect(totals).to.deep.equal([{ _id: null, documents: 3, versions }]);
    expect(versions).to.be.greaterThan(0);
  });

  it('stores, finds and keeps unique strings that contain U+0000', async function () {
    const names = ['org\u0000a', 'org\u0000b', '\ue000\u0000', '\ue0000'];
    await collection('strings').insertMany(names.map((name) => ({ _id: name, owner: name })));
    for (const name of names) {
      expect(await collection('strings').findOne({ _id: name })).to.deep.equal({
        _id: name,
        owner: name,
      });
    }
    expect(await collection('strings').countDocuments({ owner: 'org\u0000a' })).to.equal(1);
    const duplicate = await collection('strings')
      .insertOne({ _id: 'org\u0000a' })
      .catch((error: { code?: number }) => error);
    expect((duplicate as { code?: number }).code).to.equal(11000);
  });
});
