import { expect } from 'chai';
import { Kafka, logLevel } from 'kafkajs';
import { endpointOf, silentLogger, uniqueName, waitFor } from '../src/testing';
import { KafkaEventBus } from '../src/adapters/kafka-event-bus';
import { busMetrics } from '../src/adapters/kafka-metrics';
import { OutboxPublisher } from '../src/adapters/outbox';
import { InMemoryOutboxStore } from '../src/adapters/outbox-store';
import { Topics } from '../src/events/topics';
import { usageEvent } from './outbox-fixtures';

/** The value of one series in busMetrics (0 when it does not exist). */
async function sample(name: string, labels: Record<string, string> = {}): Promise<number> {
  const family = name.replace(/_count$/, '');
  const metric = busMetrics.getSingleMetric(family);
  if (!metric) throw new Error(`no metric ${family}`);
  const values = (await metric.get()).values.filter(
    (v) =>
      ((v as { metricName?: string }).metricName ?? family) === name &&
      Object.entries(labels).every(([k, value]) => v.labels[k] === value),
  );
  return values.reduce((sum, v) => sum + v.value, 0);
}

describe('event bus metrics', function () {
  this.timeout(60_000);

  it('Kafka: consumer lag, processed messages and dead letters per group and logical topic', async () => {
    const brokers = endpointOf('kafka')!.split(',');
    const prefix = `${uniqueName('m')}.`;
    const bus = new KafkaEventBus({
      brokers,
      clientId: uniqueName('bus'),
      logger: silentLogger(),
      topicPrefix: prefix,
      retryBaseMs: 5,
      maxAttempts: 2,
    });
    const group = uniqueName('metrics');
    const handled: string[] = [];
    try {
      await bus.start();
      const producer = new Kafka({
        brokers,
        clientId: uniqueName('raw'),
        logLevel: logLevel.NOTHING,
      }).producer();
      await producer.connect();
      await producer.send({
        topic: bus.physical(Topics.usage),
        messages: [{ key: 'org_raw', value: 'not an event' }],
      });
      await producer.disconnect();
      for (let n = 1; n <= 4; n++)
        await bus.publish(usageEvent(n, n === 4 ? 'org_poison' : 'org_ok'));
      await bus.subscribe({
        group,
        topics: [Topics.usage],
        handler: async (event) => {
          if (event.organization === 'org_poison') throw new Error('handler keeps failing');
          handled.push(event.id);
        },
      });
      const labels = { group, topic: Topics.usage };
      await waitFor(
        async () => (await sample('kafka_consumer_messages_total', labels)) === 5,
        30_000,
      );
      expect(handled).to.have.length(3);
      expect(
        await sample('kafka_dead_letter_messages_total', { ...labels, reason: 'invalid' }),
      ).to.equal(1);
      expect(
        await sample('kafka_dead_letter_messages_total', { ...labels, reason: 'handler_failed' }),
      ).to.equal(1);
      expect(await sample('kafka_consumer_lag', labels)).to.equal(0);
      const text = await busMetrics.metrics();
      expect(text).to.include(
        `kafka_consumer_lag{group="${group}",topic="switchyard.usage.v1",partition=`,
      );
      expect(text).to.not.include(prefix);
    } finally {
      await bus.close();
    }
  });

  it('outbox: depth and oldest age while the bus is down, back to 0 once relayed', async () => {
    let busUp = false;
    const published: string[] = [];
    const bus = {
      publish: async (event: { id: string }) => {
        if (!busUp) throw new Error('bus down');
        published.push(event.id);
      },
    };
    const outbox = new OutboxPublisher({
      bus,
      store: new InMemoryOutboxStore(),
      logger: silentLogger(),
      relayIntervalMs: 10,
      maxBackoffMs: 20,
    });
    const storedBefore = await sample('outbox_stored_events_total');
    await outbox.start();
    try {
      const minuteAgo = new Date(Date.now() - 60_000).toISOString();
      await outbox.publish({ ...usageEvent(1), time: minuteAgo });
      await outbox.publish(usageEvent(2));
      expect(await sample('outbox_events')).to.equal(2);
      expect(await sample('outbox_oldest_event_age_seconds')).to.be.within(59, 120);
      expect((await sample('outbox_stored_events_total')) - storedBefore).to.equal(2);
      busUp = true;
      await waitFor(async () => published.length === 2, 5000);
      expect(await sample('outbox_events')).to.equal(0);
      expect(await sample('outbox_oldest_event_age_seconds')).to.equal(0);
    } finally {
      await outbox.stop();
    }
  });
});
