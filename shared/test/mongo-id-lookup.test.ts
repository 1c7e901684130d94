import { expect } from 'chai';
import { MongoClient } from 'mongodb';
import { endpointOf, uniqueName } from '../src/testing';

/**
 * Every store on the request path reads and writes its documents by `_id`, on the assumption
 * that the server answers that from the `_id` index, as MongoDB does. FerretDB 1.24 on SQLite
 * (deploy/local) did not: its lookup expression differed from its index's, so each one scanned
 * the collection (deploy/local/ferretdb/sqlite-id-index.patch). This checks the server in use.
 */
describe('MongoDB server in use: lookups by _id', function () {
  let client: MongoClient;
  let databaseName: string;

  before(async function () {
    const uri = endpointOf('mongo');
    if (!uri) this.skip();
    client = await MongoClient.connect(uri!);
    databaseName = uniqueName('test_id_lookup');
  });

  after(async function () {
    if (!client) return;
    await client.db(databaseName).dropDatabase();
    await client.close();
  });

  async function planOf(filter: object): Promise<string> {
    const db = client.db(databaseName);
    const explained = await db.command({ explain: { find: 'documents', filter } });
    return JSON.stringify(explained.queryPlanner);
  }

  before(async function () {
    await client
      .db(databaseName)
      .collection('documents')
      .insertMany([
        { _id: 'a' as never, version: 1 },
        { _id: 'b' as never, version: 2 },
      ]);
  });

  // MongoDB: IDHACK / EXPRESS_IDHACK or IXSCAN on _id_; FerretDB on SQLite: "SEARCH ... USING INDEX".
  it('are served by the _id index, not a collection scan', async function () {
    const plan = await planOf({ _id: 'b' });
    expect(plan).to.match(/IDHACK|IXSCAN|USING INDEX/);
    expect(plan).not.to.match(/COLLSCAN|detail=SCAN/);
  });

  it('are served by the _id index when the filter also guards other fields (a versioned write)', async function () {
    const plan = await planOf({ _id: 'b', version: 2 });
    expect(plan).to.match(/IXSCAN|USING INDEX|IDHACK/);
    expect(plan).not.to.match(/COLLSCAN|detail=SCAN/);
  });
});
