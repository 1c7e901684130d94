import { expect } from 'chai';
import { Kafka, PartitionAssigners, logLevel, type Consumer } from 'kafkajs';
import { KafkaEventBus } from '../src/adapters/kafka-event-bus';
import { createEvent, type AnyEvent } from '../src/events/envelope';
import { Topics } from '../src/events/topics';
import { dependencyHealth } from '../src/resilience/dependencies';
import { endpointOf, silentLogger, uniqueName, waitFor } from '../src/testing';
import { usageEvent } from './outbox-fixtures';

function newBus(prefix: string, healthRecheckMs?: number): KafkaEventBus {
  return new KafkaEventBus({
    healthRecheckMs,
    brokers: endpointOf('kafka')!.split(','),
    clientId: uniqueName('health'),
    logger: silentLogger(),
    topicPrefix: prefix,
    partitions: 1,
  });
}

function client(): Kafka {
  return new Kafka({ brokers: endpointOf('kafka')!.split(','), logLevel: logLevel.NOTHING });
}

async function deleteTopic(topic: string): Promise<void> {
  const admin = client().admin();
  await admin.connect();
  try {
    await admin.deleteTopics({ topics: [topic] });
  } finally {
    await admin.disconnect();
  }
}

/** Publishes until the broker refuses (a topic's deletion reaches its metadata a moment later). */
async function refused(bus: KafkaEventBus, event: AnyEvent): Promise<void> {
  await waitFor(
    () =>
      bus.publish(event).then(
        () => false,
        () => true,
      ),
    30_000,
  );
}

/**
 * Issue 37 (a fault run): /readyz said Kafka "up" while a service's publishes answered 503. A
 * process's view of Kafka is down while its publishes fail, however well its consumers fetch.
 */
describe("Kafka bus: a process's view of Kafka", function () {
  this.timeout(90_000);
  let consuming: KafkaEventBus | undefined;
  let publishing: KafkaEventBus | undefined;

  before(function () {
    if (!endpointOf('kafka')) this.skip();
  });

  after(async () => {
    await consuming?.close();
    await publishing?.close();
  });

  it('is down while its publishes fail, though its consumer fetches, and up once a publish succeeds', async () => {
    const prefix = `${uniqueName('health')}.`;
    // No reconnect check within the test: only a publish that succeeds brings the view up.
    consuming = newBus(prefix, 600_000);
    publishing = newBus(prefix);
    await consuming.start();
    await publishing.start();
    const received: AnyEvent[] = [];
    await consuming.subscribe({
      group: uniqueName('health'),
      topics: [Topics.usage],
      handler: async (event) => void received.push(event),
    });
    await publishing.publish(usageEvent(1));
    await waitFor(() => received.length === 1, 30_000);
    expect(dependencyHealth.status().kafka).to.equal('up');

    // The data topic taken away: the consuming bus's publishes to it fail (no auto-creation).
    await deleteTopic(`${prefix}${Topics.data}`);
    const update = createEvent('data.updated', {
      source: 'test',
      organization: 'org_a',
      data: { dataset: 'interactions', count: 1 },
    });
    await refused(consuming, update);
    expect(dependencyHealth.status().kafka).to.equal('down');

    // Its consumer fetches on (it receives an event published since): the view stays down.
    await publishing.publish(usageEvent(2));
    await waitFor(() => received.length === 2, 30_000);
    expect(dependencyHealth.status().kafka).to.equal('down');

    // A publish that succeeds again (the next one reconnects and creates the topic) brings it up.
    await waitFor(
      () =>
        consuming!.publish(update).then(
          () => true,
          () => false,
        ),
      30_000,
    );
    expect(dependencyHealth.status().kafka).to.equal('up');
  });

  it('is up again without a publish once the producer can connect (a process that rarely publishes)', async () => {
    const prefix = `${uniqueName('health')}.`;
    const bus = newBus(prefix, 200);
    await bus.start();
    await deleteTopic(`${prefix}${Topics.usage}`);
    try {
      await refused(bus, usageEvent(3));
      expect(dependencyHealth.status().kafka).to.equal('down');
      // The reconnect (which creates the missing topic again) is what brings the view back up.
      await waitFor(() => dependencyHealth.status().kafka === 'up', 30_000);
    } finally {
      await bus.close();
    }
  });

  it('comes back once a consumer its client gave up on is replaced and fetches again', async () => {
    const prefix = `${uniqueName('health')}.`;
    const group = uniqueName('health');
    // A member of the group with another assignment protocol: kafkajs's join then fails with
    // INCONSISTENT_GROUP_PROTOCOL, which it does not retry (as "Failed to find group
    // coordinator" while a broker shuts down): its consumer stops for good.
    const other: Consumer = client().consumer({
      groupId: `${prefix}${group}`,
      partitionAssigners: [
        (config) => ({ ...PartitionAssigners.roundRobin(config), name: 'Other' }),
      ],
    });
    const bus = newBus(prefix);
    try {
      await bus.start();
      await other.connect();
      await other.subscribe({ topics: [`${prefix}${Topics.usage}`] });
      await other.run({ eachMessage: async () => undefined });
      await waitFor(async () => (await groupState(`${prefix}${group}`)) === 'Stable', 30_000);
      const received: AnyEvent[] = [];
      await bus.subscribe({
        group,
        topics: [Topics.usage],
        handler: async (event) => void received.push(event),
      });
      await waitFor(() => dependencyHealth.status().kafka === 'down', 30_000);
      // The other member gone, the bus's new consumer joins: events reach it, Kafka reads up.
      await other.disconnect();
      await bus.publish(usageEvent(4));
      await waitFor(() => received.length === 1, 60_000);
      await waitFor(() => dependencyHealth.status().kafka === 'up', 30_000);
    } finally {
      await other.disconnect();
      await bus.close();
    }
  });
});

async function groupState(groupId: string): Promise<string> {
  const admin = client().admin();
  await admin.connect();
  try {
    const { groups } = await admin.describeGroups([groupId]);
    return groups[0]?.state ?? '';
  } finally {
    await admin.disconnect();
  }
}
