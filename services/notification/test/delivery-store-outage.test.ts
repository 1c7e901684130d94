import { connectMongo, outageOf, type MongoConnection } from '@switchyard/shared';
import { endpointOf, silentLogger, uniqueName } from '@switchyard/shared/testing';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { ensureIndexes } from '../src/store';
import { Collections } from '../src/store/collections';
import { MongoDeliveryStore } from '../src/store/deliveries/mongo';
import { expect } from './chai';
import { deliveryRecord } from './store-fixtures';

/** The BSON of a command's first field `insert: <collection>` (a string element). */
function insertCommand(collection: string): Buffer {
  const name = Buffer.from(`${collection}\0`);
  const length = Buffer.alloc(4);
  length.writeInt32LE(name.length);
  return Buffer.concat([Buffer.from([0x02]), Buffer.from('insert\0'), length, name]);
}

/**
 * A proxy to the MongoDB server that drops the connection an `insert` into the chosen collection
 * is written on, without passing it on: what a client sees when the server stops as it writes.
 */
class DroppingProxy {
  private server?: Server;
  dropInsertsInto?: string;
  dropped = 0;

  constructor(private readonly target: URL) {}

  async start(): Promise<string> {
    this.server = createServer((client) => this.pipe(client));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    const url = new URL(this.target);
    url.hostname = '127.0.0.1';
    url.port = String((this.server.address() as { port: number }).port);
    return url.toString();
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }

  private pipe(client: Socket): void {
    const upstream = connect(Number(this.target.port), this.target.hostname);
    const close = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('data', (chunk: Buffer) => {
      if (this.dropInsertsInto && chunk.includes(insertCommand(this.dropInsertsInto))) {
        this.dropped++;
        close();
        return;
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
    client.on('close', close).on('error', close);
    upstream.on('close', close).on('error', close);
  }
}

describe('MongoDeliveryStore when the server drops the connection of an insert', function () {
  this.timeout(20_000);
  let proxy: DroppingProxy;
  let connection: MongoConnection;
  let store: MongoDeliveryStore;

  before(async function () {
    const uri = endpointOf('mongo');
    if (!uri) this.skip();
    proxy = new DroppingProxy(new URL(uri!));
    connection = await connectMongo(
      await proxy.start(),
      uniqueName('notification_drop'),
      silentLogger(),
    );
    await ensureIndexes(connection.db);
    store = new MongoDeliveryStore(connection.db);
  });

  after(async () => {
    if (!connection) return;
    proxy.dropInsertsInto = undefined;
    await connection.db.dropDatabase();
    await connection.close();
    await proxy.stop();
  });

  afterEach(() => {
    proxy.dropInsertsInto = undefined;
  });

  // One record alone and a batch of several: a consumed batch's deliveries are logged together.
  for (const size of [1, 3])
    it(`fails logging ${size} (an outage, not "written") when the insert is cut off`, async () => {
      const records = Array.from({ length: size }, (_, i) =>
        deliveryRecord({ eventId: `evt_${size}`, webhookId: `wh_${i}` }),
      );
      proxy.dropInsertsInto = Collections.deliveries;
      const outcome = await store.insert(records).then(
        () => ({ written: true }),
        (error: unknown) => ({ error }),
      );
      expect(proxy.dropped, 'the insert was cut off').to.be.greaterThan(0);
      expect(outcome).to.have.property('error');
      expect(outageOf((outcome as { error: unknown }).error)).to.equal('mongodb');
      // Once the server answers again, the same records are written (a retry of the batch).
      proxy.dropInsertsInto = undefined;
      await store.insert(records);
      const logged = await store.getMany(records.map((r) => r.id));
      expect(logged.map((d) => d.id).sort()).to.deep.equal(records.map((r) => r.id).sort());
    });
});
