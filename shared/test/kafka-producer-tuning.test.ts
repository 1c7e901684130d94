import { expect } from 'chai';
import { setTimeout as delay } from 'node:timers/promises';
import { commandMetrics } from '../src/adapters/command-metrics';
import { KafkaEventBus } from '../src/adapters/kafka-event-bus';
import type { AnyEvent } from '../src/events/envelope';
import { Topics } from '../src/events/topics';
import { endpointOf, silentLogger, uniqueName, waitFor } from '../src/testing';
import { usageEvent } from './outbox-fixtures';

/** Produce requests and events the producer had acknowledged so far. */
async function produced(): Promise<{ requests: number; events: number }> {
  const metrics = await commandMetrics.getMetricsAsJSON();
  const values = (name: string) => metrics.find((metric) => metric.name === name)?.values ?? [];
  const requests = values('kafka_produce_request_duration_seconds').find((value) =>
    (value as { metricName?: string }).metricName?.endsWith('_count'),
  );
  return {
    requests: requests?.value ?? 0,
    events: values('kafka_produced_events_total')[0]?.value ?? 0,
  };
}

describe('Kafka producer tuning (KAFKA_LINGER_MS, KAFKA_COMPRESSION)', function () {
  this.timeout(90_000);

  before(function () {
    if (!endpointOf('kafka')) this.skip();
  });

  it('gzip with a linger: every event arrives, in publish order, in fewer produce requests', async () => {
    const bus = new KafkaEventBus({
      brokers: endpointOf('kafka')!.split(','),
      clientId: uniqueName('tuning'),
      logger: silentLogger(),
      topicPrefix: `${uniqueName('tuning')}.`,
      partitions: 1,
      producer: { compression: 'gzip', lingerMs: 100 },
    });
    try {
      await bus.start();
      const received: number[] = [];
      await bus.subscribeBatch({
        group: uniqueName('tuning'),
        topics: [Topics.usage],
        handler: async (events: AnyEvent[]) => {
          for (const event of events)
            if (event.type === 'usage.recorded') received.push(event.data.tokensInput);
        },
      });
      const before = await produced();
      // Calls 10 ms apart, each waiting for its ack: without a linger each would go alone on a
      // quiet machine (an ack takes a few ms), with 100 ms about ten share a request.
      const sent = Array.from({ length: 24 }, (_, i) => i + 1);
      const acks: Promise<void>[] = [];
      for (const n of sent) {
        acks.push(bus.publish(usageEvent(n)));
        await delay(10);
      }
      await Promise.all(acks);
      const after = await produced();
      expect(after.events - before.events).to.equal(sent.length);
      expect(after.requests - before.requests).to.be.at.most(sent.length / 3);
      await waitFor(() => received.length >= sent.length, 30_000);
      expect(received).to.deep.equal(sent);
    } finally {
      await bus.close();
    }
  });
});
