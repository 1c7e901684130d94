import type { Consumer } from 'kafkajs';
import { Counter, Gauge, Registry } from 'prom-client';

/** Event-bus metrics of this process (Kafka consumers); served on METRICS_PORT by every service. */
export const busMetrics = new Registry();

const consumerLag = new Gauge({
  name: 'kafka_consumer_lag',
  help: 'Messages of a partition not yet consumed by the group (high watermark - last processed offset - 1), as of the last batch.',
  labelNames: ['group', 'topic', 'partition'] as const,
  registers: [busMetrics],
});

const consumedTotal = new Counter({
  name: 'kafka_consumer_messages_total',
  help: 'Messages processed by a consumer group, per topic.',
  labelNames: ['group', 'topic'] as const,
  registers: [busMetrics],
});

const deadLetteredTotal = new Counter({
  name: 'kafka_dead_letter_messages_total',
  help: 'Messages a consumer group sent to the dead-letter topic, per source topic and reason (invalid, handler_failed, rejected: refused by its handler).',
  labelNames: ['group', 'topic', 'reason'] as const,
  registers: [busMetrics],
});

/** Keeps the lag and consumed counts of one consumer up to date (kafkajs batch events). */
export function observeConsumer(
  consumer: Consumer,
  group: string,
  logicalTopic: (physical: string) => string,
): void {
  consumer.on(consumer.events.END_BATCH_PROCESS, ({ payload }) => {
    const topic = logicalTopic(payload.topic);
    consumerLag.set(
      { group, topic, partition: String(payload.partition) },
      Math.max(0, Number(payload.offsetLag)),
    );
    consumedTotal.inc({ group, topic }, payload.batchSize);
  });
}

export function countDeadLetter(
  group: string,
  topic: string,
  reason: 'invalid' | 'handler_failed' | 'rejected',
): void {
  deadLetteredTotal.inc({ group, topic, reason });
}
