import { expect } from 'chai';
import { MongoOutboxStore } from '../src/adapters/outbox-mongo-store';
import { InMemoryOutboxStore, type OutboxStore } from '../src/adapters/outbox-store';
import { contractSuite } from '../src/testing';
import { memoryWorld, mongoWorld, type StoreWorld } from './store-worlds';
import { usageEvent } from './outbox-fixtures';

const memory = memoryWorld<OutboxStore>(() => new InMemoryOutboxStore());
const mongo = mongoWorld('outbox_test', (db) => new MongoOutboxStore(db));

contractSuite<StoreWorld<OutboxStore>>('OutboxStore contract', { memory, mongo }, (world) => {
  it('reads events back oldest first, exactly as stored', async () => {
    const events = [1, 2, 3, 4, 5].map((n) => usageEvent(n));
    for (const event of events) await world().store.add(event);
    expect(await world().store.oldest(10)).to.deep.equal(events.map((event) => ({ event })));
    expect(await world().store.oldest(2)).to.deep.equal(
      events.slice(0, 2).map((event) => ({ event })),
    );
    expect(await world().store.count()).to.equal(5);
  });

  it('keeps one entry per event id, at its first position', async () => {
    const [a, b] = [usageEvent(1), usageEvent(2)];
    await world().store.add(a!);
    await world().store.add(b!);
    await world().store.add(a!);
    expect((await world().store.oldest(10)).map((e) => e.event.id)).to.deep.equal([a!.id, b!.id]);
  });

  it('removes acknowledged events and ignores unknown ids', async () => {
    const [a, b] = [usageEvent(1), usageEvent(2)];
    await world().store.add(a!);
    await world().store.add(b!);
    await world().store.remove(a!.id);
    await world().store.remove('evt_unknown');
    expect((await world().store.oldest(10)).map((e) => e.event.id)).to.deep.equal([b!.id]);
    expect(await world().store.count()).to.equal(1);
  });

  it('keeps concurrent adds of the same id once', async () => {
    const event = usageEvent(7);
    await Promise.all(Array.from({ length: 8 }, () => world().store.add(event)));
    expect(await world().store.count()).to.equal(1);
  });

  it('is visible to a second store over the same state (restart)', async () => {
    const event = usageEvent(3);
    await world().store.add(event);
    const reopened = await world().reopen();
    expect(await reopened.oldest(10)).to.deep.equal([{ event }]);
  });

  it('keeps the trace context an event was published in, for the relay to continue', async () => {
    const trace = {
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      tracestate: 'vendor=value',
    };
    const [a, b] = [usageEvent(1), usageEvent(2)];
    await world().store.add(a!, trace);
    await world().store.add(b!);
    const reopened = await world().reopen();
    expect(await reopened.oldest(10)).to.deep.equal([{ event: a, trace }, { event: b }]);
  });
});
