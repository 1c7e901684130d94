import { expect } from 'chai';
import { Kafka, logLevel, type Consumer } from 'kafkajs';
import { contractSuite, endpointOf, silentLogger, uniqueName, waitFor } from '../src/testing';
import { InMemoryEventBus } from '../src/adapters/in-memory-event-bus';
import { KafkaEventBus } from '../src/adapters/kafka-event-bus';
import { createEvent, type AnyEvent } from '../src/events/envelope';
import { Topics } from '../src/events/topics';
import { DependencyUnavailableError } from '../src/resilience/dependencies';
import { MongoNetworkError } from 'mongodb';
import type { EventBus } from '../src/events/bus';
import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace';
import { currentTraceCarrier, startTracing, stopTracing, withSpan } from '../src/tracing/index';

interface BusUnderTest {
  bus: EventBus;
  /** Ids of events that reached the dead letters. */
  deadLetterIds(): string[];
  close(): Promise<void>;
}

function usageEvent(organization: string, n: number): AnyEvent {
  return createEvent('usage.recorded', {
    source: 'test',
    organization,
    data: {
      requestId: `req_${n}`,
      keyId: 'key',
      route: 'content.generate',
      model: 'builtin',
      tokensInput: n,
      tokensOutput: 1,
      cost: 0,
      outcome: 'succeeded',
    },
  });
}

async function kafkaBus(): Promise<BusUnderTest> {
  const brokers = endpointOf('kafka')!.split(',');
  const prefix = `${uniqueName('t')}.`;
  const logger = silentLogger();
  const bus = new KafkaEventBus({
    brokers,
    clientId: uniqueName('bus'),
    logger,
    topicPrefix: prefix,
    retryBaseMs: 20,
    maxAttempts: 3,
  });
  await bus.start();
  const dead: string[] = [];
  const kafka = new Kafka({ brokers, clientId: uniqueName('dlq'), logLevel: logLevel.NOTHING });
  const dlq: Consumer = kafka.consumer({ groupId: uniqueName('dlq') });
  await dlq.connect();
  await dlq.subscribe({ topic: bus.physical(Topics.deadLetter), fromBeginning: true });
  await dlq.run({
    eachMessage: async ({ message }) => void dead.push(String(message.headers?.['event-id'] ?? '')),
  });
  return {
    bus,
    deadLetterIds: () => dead,
    close: async () => {
      await dlq.disconnect();
      await bus.close();
    },
  };
}

async function memoryBus(): Promise<BusUnderTest> {
  const bus = new InMemoryEventBus({ retryBaseMs: 5, maxAttempts: 3 });
  return {
    bus,
    deadLetterIds: () => bus.deadLetters.map((d) => d.event.id),
    close: () => bus.close(),
  };
}

contractSuite<BusUnderTest>(
  'EventBus contract',
  {
    memory: { create: memoryBus, destroy: (b) => b.close() },
    kafka: { create: kafkaBus, destroy: (b) => b.close() },
  },
  (subject) => {
    it('delivers every event to every consumer group, in order per organization', async function () {
      this.timeout(60_000);
      const { bus } = subject();
      const org = uniqueName('org');
      const seen: Record<string, number[]> = { a: [], b: [] };
      for (const group of ['a', 'b']) {
        await bus.subscribe({
          group: uniqueName(group),
          topics: [Topics.usage],
          handler: async (event) => {
            if (event.organization === org && event.type === 'usage.recorded')
              seen[group]!.push(event.data.tokensInput);
          },
        });
      }
      for (let n = 1; n <= 20; n++) await bus.publish(usageEvent(org, n));
      const expected = Array.from({ length: 20 }, (_, i) => i + 1);
      await waitFor(() => seen.a!.length >= 20 && seen.b!.length >= 20, 30_000);
      expect(seen.a).to.deep.equal(expected);
      expect(seen.b).to.deep.equal(expected);
    });

    it('publishes events sent at once (as concurrent requests do): each once, in publish order per organization', async function () {
      this.timeout(60_000);
      const { bus } = subject();
      const orgs = [uniqueName('org'), uniqueName('org')];
      const seen = new Map<string, number[]>(orgs.map((org) => [org, []]));
      await bus.subscribe({
        group: uniqueName('burst'),
        topics: [Topics.usage],
        handler: async (event) => {
          if (event.type === 'usage.recorded')
            seen.get(event.organization)?.push(event.data.tokensInput);
        },
      });
      const count = 600;
      // Not awaited one by one: the publishes overlap, so the Kafka bus groups them into shared requests.
      await Promise.all(
        Array.from({ length: count }, (_, i) => bus.publish(usageEvent(orgs[i % 2]!, i))),
      );
      await waitFor(() => [...seen.values()].every((list) => list.length >= count / 2), 30_000);
      for (const [index, org] of orgs.entries()) {
        expect(seen.get(org), org).to.deep.equal(
          Array.from({ length: count / 2 }, (_, k) => 2 * k + index),
        );
      }
    });

    it("carries the publisher's trace context to the consumer (Kafka: traceparent in the message headers)", async function () {
      this.timeout(60_000);
      const { bus } = subject();
      const exporter = new InMemorySpanExporter();
      startTracing('test', { exporter, env: {} });
      try {
        const org = uniqueName('org');
        const group = uniqueName('test-traced');
        const seen: string[] = [];
        await bus.subscribe({
          group,
          topics: [Topics.usage],
          handler: async (event) =>
            void (event.organization === org && seen.push(currentTraceCarrier()!.traceparent!)),
        });
        const request = await withSpan('request', {}, async (span) => {
          await bus.publish(usageEvent(org, 1));
          return span.spanContext();
        });
        const inTrace = () =>
          exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === request.traceId);
        // The consumer can finish before the producer's span ends (that waits for Kafka's ack).
        const ended = (kind: SpanKind) => inTrace().some((s) => s.kind === kind);
        await waitFor(() => ended(SpanKind.CONSUMER) && ended(SpanKind.PRODUCER), 30_000);
        const producer = inTrace().find((s) => s.kind === SpanKind.PRODUCER)!;
        const consumer = inTrace().find((s) => s.kind === SpanKind.CONSUMER)!;
        expect(producer.parentSpanContext!.spanId).to.equal(request.spanId);
        expect(consumer.parentSpanContext!.spanId).to.equal(producer.spanContext().spanId);
        expect(consumer.attributes['messaging.consumer.group.name']).to.equal(group);
        expect(seen).to.deep.equal([`00-${request.traceId}-${consumer.spanContext().spanId}-01`]);
      } finally {
        await stopTracing();
      }
    });

    it('retries a failing handler and goes on with later events', async function () {
      this.timeout(60_000);
      const { bus } = subject();
      const org = uniqueName('org');
      let failures = 0;
      const handled: number[] = [];
      await bus.subscribe({
        group: uniqueName('retry'),
        topics: [Topics.usage],
        handler: async (event) => {
          if (event.organization !== org || event.type !== 'usage.recorded') return;
          if (event.data.tokensInput === 1 && failures < 2) {
            failures++;
            throw new Error('transient');
          }
          handled.push(event.data.tokensInput);
        },
      });
      await bus.publish(usageEvent(org, 1));
      await bus.publish(usageEvent(org, 2));
      await waitFor(() => handled.length >= 2, 30_000);
      expect(failures).to.equal(2);
      expect(handled).to.deep.equal([1, 2]);
    });

    it('sends an event whose handler keeps failing to the dead letters, without blocking the rest', async function () {
      this.timeout(60_000);
      const under = subject();
      const org = uniqueName('org');
      const poison = usageEvent(org, 1);
      const handled: number[] = [];
      await under.bus.subscribe({
        group: uniqueName('dlq'),
        topics: [Topics.usage],
        handler: async (event) => {
          if (event.organization !== org || event.type !== 'usage.recorded') return;
          if (event.id === poison.id) throw new Error('always fails');
          handled.push(event.data.tokensInput);
        },
      });
      await under.bus.publish(poison);
      await under.bus.publish(usageEvent(org, 2));
      await waitFor(() => handled.includes(2) && under.deadLetterIds().includes(poison.id), 30_000);
    });

    it('hands batch subscribers every event once, in batches of at most maxBatchSize', async function () {
      this.timeout(60_000);
      const { bus } = subject();
      const org = uniqueName('org');
      const seen: number[] = [];
      const sizes: number[] = [];
      await bus.subscribeBatch({
        group: uniqueName('batch'),
        topics: [Topics.usage],
        maxBatchSize: 7,
        handler: async (events) => {
          sizes.push(events.length);
          for (const event of events)
            if (event.organization === org && event.type === 'usage.recorded')
              seen.push(event.data.tokensInput);
        },
      });
      await Promise.all(
        Array.from({ length: 40 }, (_, i) => i + 1).map((n) => bus.publish(usageEvent(org, n))),
      );
      await waitFor(() => seen.length >= 40, 30_000);
      expect([...seen].sort((a, b) => a - b)).to.deep.equal(
        Array.from({ length: 40 }, (_, i) => i + 1),
      );
      expect(Math.max(...sizes)).to.be.at.most(7);
    });

    it('retries a failing batch event by event: only the poison event reaches the dead letters', async function () {
      this.timeout(60_000);
      const under = subject();
      const org = uniqueName('org');
      const first = usageEvent(org, 1);
      const poison = usageEvent(org, 2);
      const handled = new Set<number>();
      const { bus } = under;
      await bus.publish(first);
      await bus.publish(poison);
      await bus.publish(usageEvent(org, 3));
      await bus.subscribeBatch({
        group: uniqueName('batchdlq'),
        topics: [Topics.usage],
        handler: async (events) => {
          const mine = events.filter((e) => e.organization === org && e.type === 'usage.recorded');
          if (mine.some((e) => e.id === poison.id)) throw new Error('always fails');
          for (const event of mine)
            if (event.type === 'usage.recorded') handled.add(event.data.tokensInput);
        },
      });
      await waitFor(
        () => handled.has(1) && handled.has(3) && under.deadLetterIds().includes(poison.id),
        30_000,
      );
      expect(handled.has(2)).to.equal(false);
      expect(under.deadLetterIds().filter((id) => id === first.id)).to.deep.equal([]);
    });

    it('retries an event whose handler fails on a dependency outage until it is back: an outage never dead-letters', async function () {
      this.timeout(60_000);
      const under = subject();
      const org = uniqueName('org');
      // More failures than maxAttempts (3), as while MongoDB is down for a few seconds.
      const outageFailures = 6;
      const failures = { plain: 0, batch: 0 };
      const handled = { plain: [] as string[], batch: [] as string[] };
      const event = usageEvent(org, 1);
      await under.bus.subscribe({
        group: uniqueName('outage'),
        topics: [Topics.usage],
        handler: async (e) => {
          if (e.organization !== org) return;
          if (failures.plain++ < outageFailures)
            throw new MongoNetworkError('connect ECONNREFUSED 127.0.0.1:27017');
          handled.plain.push(e.id);
        },
      });
      await under.bus.subscribeBatch({
        group: uniqueName('outagebatch'),
        topics: [Topics.usage],
        handler: async (events) => {
          const mine = events.filter((e) => e.organization === org);
          if (mine.length === 0) return;
          if (failures.batch++ < outageFailures) throw new DependencyUnavailableError('mongodb');
          handled.batch.push(...mine.map((e) => e.id));
        },
      });
      await under.bus.publish(event);
      await waitFor(() => handled.plain.length > 0 && handled.batch.length > 0, 30_000);
      expect(handled).to.deep.equal({ plain: [event.id], batch: [event.id] });
      expect(under.deadLetterIds()).to.not.include(event.id);
    });

    it('refuses to publish an invalid event', async () => {
      const { bus } = subject();
      const bad = { ...usageEvent('org', 1), data: { requestId: 'x' } } as unknown as AnyEvent;
      let error: unknown;
      try {
        await bus.publish(bad);
      } catch (e) {
        error = e;
      }
      expect(error).to.have.property('code', 'invalid_request');
    });

    it('resumes a consumer group where it stopped: nothing acknowledged is lost', async function () {
      this.timeout(90_000);
      const { bus } = subject();
      const org = uniqueName('org');
      const group = uniqueName('resume');
      const seen = new Set<number>();
      const handler = async (event: AnyEvent) => {
        if (event.organization === org && event.type === 'usage.recorded')
          seen.add(event.data.tokensInput);
      };
      const first = await bus.subscribe({ group, topics: [Topics.usage], handler });
      for (let n = 1; n <= 5; n++) await bus.publish(usageEvent(org, n));
      await waitFor(() => seen.size >= 5, 30_000);
      await first.close();
      for (let n = 6; n <= 10; n++) await bus.publish(usageEvent(org, n));
      await bus.subscribe({ group, topics: [Topics.usage], handler });
      await waitFor(() => seen.size >= 10, 60_000);
      expect([...seen].sort((a, b) => a - b)).to.deep.equal([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    });
  },
);
