import { expect } from 'chai';
import { connectMongo, type MongoConnection } from '@switchyard/shared';
import { silentLogger } from '@switchyard/shared/testing';
import { OutageProxy } from '../support/outage-proxy';
import { realInfrastructure } from '../support/stack';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A service's MongoDB client comes back after every outage. The server is reached through a TCP
 * proxy that drops every connection and refuses new ones, over and over, while operations run:
 * one outage in a few used to leave the driver's server monitor stalled for good (every later
 * operation failed server selection although the server was back), which connectMongo now
 * detects and repairs.
 */
describe('MongoDB client through repeated outages', function () {
  this.timeout(180_000);
  const CYCLES = 12;
  /** The stall is detected after 3 s of a check without an answer; then a reconnect. */
  const BACK_WITHIN_MS = 8000;
  let proxy: OutageProxy;
  let mongo: MongoConnection;

  before(async function () {
    if (!realInfrastructure()) this.skip();
    proxy = OutageProxy.forUrl(process.env.MONGODB_URI!);
    await proxy.start();
    mongo = await connectMongo(
      proxy.urlFor(process.env.MONGODB_URI!),
      `reconnect_${process.pid}_${Date.now()}`,
      silentLogger(),
    );
  });

  after(async () => {
    await mongo?.db.dropDatabase().catch(() => undefined);
    await mongo?.close();
    await proxy?.stop();
  });

  it(`serves operations again within seconds of each of ${CYCLES} returns`, async () => {
    const counters = mongo.db.collection<{ _id: string; n: number }>('counters');
    let served = 0;
    let running = true;
    const worker = async (id: number) => {
      while (running) {
        try {
          await counters.updateOne({ _id: `w${id}` }, { $inc: { n: 1 } }, { upsert: true });
          await counters.findOne({ _id: `w${id}` });
          served++;
        } catch {
          await sleep(50);
        }
      }
    };
    const workers = Array.from({ length: 8 }, (_, id) => worker(id));
    const backAfter: number[] = [];
    try {
      for (let cycle = 0; cycle < CYCLES; cycle++) {
        await sleep(300 + Math.random() * 700);
        proxy.down();
        await sleep(300 + Math.random() * 1200);
        proxy.up();
        const back = Date.now();
        const before = served;
        while (served < before + 5 && Date.now() - back < BACK_WITHIN_MS + 2000) await sleep(50);
        backAfter.push(Date.now() - back);
      }
    } finally {
      running = false;
      await Promise.all(workers);
    }
    process.stdout.write(`      served again after (ms): ${backAfter.join(', ')}\n`);
    expect(Math.max(...backAfter)).to.be.below(BACK_WITHIN_MS);
  });
});
