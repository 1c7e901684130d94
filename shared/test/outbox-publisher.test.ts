import { expect } from 'chai';
import { InMemoryOutboxStore } from '../src/adapters/outbox-store';
import { OutboxPublisher, type EventPublisher } from '../src/adapters/outbox';
import type { AnyEvent } from '../src/events/envelope';
import { silentLogger, waitFor } from '../src/testing';
import { usageEvent } from './outbox-fixtures';

/** A bus that can be switched down (rejects or hangs) and records what it accepted. */
class FlakyBus implements EventPublisher {
  readonly accepted: AnyEvent[] = [];
  mode: 'up' | 'rejecting' | 'hanging' = 'up';
  attempts = 0;

  async publish(event: AnyEvent): Promise<void> {
    this.attempts++;
    if (this.mode === 'rejecting') throw new Error('broker down');
    if (this.mode === 'hanging') return new Promise(() => undefined);
    this.accepted.push(structuredClone(event));
  }
}

function publisher(bus: FlakyBus, store = new InMemoryOutboxStore()) {
  const outbox = new OutboxPublisher({
    bus,
    store,
    logger: silentLogger(),
    publishTimeoutMs: 50,
    relayIntervalMs: 10,
    maxBackoffMs: 40,
  });
  return { outbox, store };
}

describe('OutboxPublisher', () => {
  it('publishes straight to a working bus and stores nothing', async () => {
    const bus = new FlakyBus();
    const { outbox, store } = publisher(bus);
    await outbox.start();
    await outbox.publish(usageEvent(1));
    expect(bus.accepted).to.have.length(1);
    expect(await store.count()).to.equal(0);
    await outbox.stop();
  });

  it('resolves while the bus is down and delivers every event, in order, once it recovers', async () => {
    const bus = new FlakyBus();
    const { outbox, store } = publisher(bus);
    await outbox.start();
    const events = Array.from({ length: 20 }, (_, n) => usageEvent(n));
    await outbox.publish(events[0]!);
    bus.mode = 'rejecting';
    for (const event of events.slice(1, 12)) await outbox.publish(event);
    expect(await store.count()).to.equal(11);
    bus.mode = 'up';
    // Published after recovery but before the relay caught up: must queue behind the stored ones.
    for (const event of events.slice(12)) await outbox.publish(event);
    await waitFor(async () => (await store.count()) === 0 && bus.accepted.length >= 20, 5000);
    await outbox.stop();
    const firstSeen = [...new Map(bus.accepted.map((e) => [e.id, e])).keys()];
    expect(firstSeen).to.deep.equal(events.map((e) => e.id));
    expect(bus.accepted).to.have.length(20);
  });

  it('treats a hanging bus like a failing one (the caller is not held up)', async () => {
    const bus = new FlakyBus();
    const { outbox, store } = publisher(bus);
    await outbox.start();
    bus.mode = 'hanging';
    const started = Date.now();
    await outbox.publish(usageEvent(1));
    expect(Date.now() - started).to.be.lessThan(1000);
    expect(await store.count()).to.equal(1);
    bus.mode = 'up';
    await waitFor(async () => (await store.count()) === 0, 5000);
    expect(bus.accepted.map((e) => e.data)).to.deep.equal([usageEvent(1).data]);
    await outbox.stop();
  });

  it('backs off exponentially while the bus stays down', async () => {
    const bus = new FlakyBus();
    const { outbox } = publisher(bus);
    await outbox.start();
    bus.mode = 'rejecting';
    await outbox.publish(usageEvent(1));
    const before = bus.attempts;
    await new Promise((resolve) => setTimeout(resolve, 400));
    // At a fixed 10 ms interval this would be ~40 attempts; capped backoff (40 ms) allows ~10.
    expect(bus.attempts - before).to.be.within(1, 15);
    bus.mode = 'up';
    await outbox.stop();
    expect(bus.accepted).to.have.length(1);
  });

  it('relays what a previous process left behind, in the background from start, new events behind it', async () => {
    const store = new InMemoryOutboxStore();
    const events = [1, 2, 3].map((n) => usageEvent(n));
    for (const event of events) await store.add(event);
    const bus = new FlakyBus();
    const { outbox } = publisher(bus, store);
    await outbox.start();
    const later = usageEvent(4);
    await outbox.publish(later);
    await waitFor(async () => (await store.count()) === 0);
    expect(bus.accepted.map((e) => e.id)).to.deep.equal([...events, later].map((e) => e.id));
    await outbox.stop();
  });

  it('stop() flushes what the bus accepts and keeps the rest for the next start', async () => {
    const bus = new FlakyBus();
    const { outbox, store } = publisher(bus);
    await outbox.start();
    bus.mode = 'rejecting';
    await outbox.publish(usageEvent(1));
    await outbox.stop();
    expect(await store.count()).to.equal(1);
    bus.mode = 'up';
    const next = new OutboxPublisher({
      bus,
      store,
      logger: silentLogger(),
      publishTimeoutMs: 50,
      relayIntervalMs: 10,
    });
    await next.start();
    await next.stop();
    expect(await store.count()).to.equal(0);
    expect(bus.accepted).to.have.length(1);
  });

  it('refuses an invalid event instead of storing it', async () => {
    const bus = new FlakyBus();
    const { outbox, store } = publisher(bus);
    await outbox.start();
    bus.mode = 'rejecting';
    const invalid = { ...usageEvent(1), data: { nonsense: true } } as unknown as AnyEvent;
    let error: unknown;
    await outbox.publish(invalid).catch((e: unknown) => (error = e));
    expect(error).to.have.property('code', 'invalid_request');
    expect(await store.count()).to.equal(0);
    await outbox.stop();
  });

  it('fails the caller only when the outbox cannot store the event either', async () => {
    const bus = new FlakyBus();
    const store = new InMemoryOutboxStore();
    store.add = async () => {
      throw new Error('database down');
    };
    const { outbox } = publisher(bus, store);
    await outbox.start();
    bus.mode = 'rejecting';
    let error: unknown;
    await outbox.publish(usageEvent(1)).catch((e: unknown) => (error = e));
    expect(String(error)).to.contain('database down');
    await outbox.stop();
  });
});
