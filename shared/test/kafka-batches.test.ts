import { expect } from 'chai';
import { KafkaEventBus } from '../src/adapters/kafka-event-bus';
import type { AnyEvent } from '../src/events/envelope';
import { Topics } from '../src/events/topics';
import { endpointOf, silentLogger, uniqueName, waitFor } from '../src/testing';
import { usageEvent } from './outbox-fixtures';

function newBus(prefix: string): KafkaEventBus {
  return new KafkaEventBus({
    brokers: endpointOf('kafka')!.split(','),
    clientId: uniqueName('batches'),
    logger: silentLogger(),
    topicPrefix: prefix,
    retryBaseMs: 20,
    maxAttempts: 3,
    // One partition: every event of the test goes through one pipeline.
    partitions: 1,
  });
}

const tokens = (events: AnyEvent[]) =>
  events.map((e) => (e.type === 'usage.recorded' ? e.data.tokensInput : -1));

describe('Kafka batch subscriptions: batches in flight and repeats', function () {
  this.timeout(90_000);
  let bus: KafkaEventBus;
  let prefix: string;

  before(function () {
    if (!endpointOf('kafka')) this.skip();
  });

  beforeEach(async () => {
    prefix = `${uniqueName('pipe')}.`;
    bus = newBus(prefix);
    await bus.start();
  });

  afterEach(async () => {
    await bus?.close();
  });

  it('hands over the next batch while one still runs, and commits only what every batch before it finished', async () => {
    const group = uniqueName('pipelined');
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const handled: number[] = [];
    const started: number[][] = [];
    const subscription = await bus.subscribeBatch({
      group,
      topics: [Topics.usage],
      maxBatchSize: 1,
      inFlight: 2,
      handler: async (events) => {
        started.push(tokens(events));
        // The first batch waits until the second one has started: they overlap.
        if (tokens(events)[0] === 1) await held;
        handled.push(...tokens(events));
      },
    });
    await bus.publish(usageEvent(1));
    await waitFor(() => started.length === 1, 30_000);
    await bus.publish(usageEvent(2));
    await waitFor(() => started.length === 2, 30_000);
    expect(handled).to.deep.equal([2]);
    release();
    await waitFor(() => handled.length === 2, 30_000);
    await subscription.close();
    // Both were committed: a new member of the group gets only what comes after them.
    const again: number[] = [];
    await bus.subscribeBatch({
      group,
      topics: [Topics.usage],
      inFlight: 2,
      handler: async (events) => void again.push(...tokens(events)),
    });
    await bus.publish(usageEvent(3));
    await waitFor(() => again.includes(3), 30_000);
    expect(again).to.deep.equal([3]);
  });

  it('tells a member which events another member may have handled before it got the partition', async () => {
    const group = uniqueName('repeats');
    for (const n of [1, 2, 3]) await bus.publish(usageEvent(n));
    const seen: Array<{ n: number; mayRepeat: boolean }> = [];
    await bus.subscribeBatch({
      group,
      topics: [Topics.usage],
      handler: async (events, { mayRepeat }) => {
        for (const n of tokens(events)) seen.push({ n, mayRepeat });
      },
    });
    await waitFor(() => seen.length === 3, 30_000);
    await bus.publish(usageEvent(4));
    await waitFor(() => seen.length === 4, 30_000);
    // Published before this member was given the partition: possibly handled by a predecessor.
    expect(seen).to.deep.equal([
      { n: 1, mayRepeat: true },
      { n: 2, mayRepeat: true },
      { n: 3, mayRepeat: true },
      { n: 4, mayRepeat: false },
    ]);
  });
});
