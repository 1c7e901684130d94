import type { Logger } from 'pino';
import type { EventBus } from '../events/bus';
import { InMemoryEventBus } from './in-memory-event-bus';
import { KafkaEventBus } from './kafka-event-bus';
import { readKafkaSettings } from './kafka-settings';

/**
 * Kafka when brokers are configured (distributed mode), otherwise an in-process bus, which only
 * connects services running in the same process (embedded mode).
 */
export async function createEventBus(options: {
  kafkaBrokers: string;
  clientId: string;
  logger: Logger;
  topicPrefix?: string;
}): Promise<EventBus> {
  const brokers = options.kafkaBrokers
    .split(',')
    .map((b) => b.trim())
    .filter(Boolean);
  if (brokers.length === 0) {
    options.logger.warn(
      'KAFKA_BROKERS is not set: using an in-process event bus (events stay in this process)',
    );
    return new InMemoryEventBus({ logger: options.logger });
  }
  const settings = readKafkaSettings();
  const bus = new KafkaEventBus({
    brokers,
    clientId: options.clientId,
    logger: options.logger,
    topicPrefix: options.topicPrefix ?? settings.topicPrefix,
    replicationFactor: settings.replicationFactor,
    ssl: settings.ssl,
    sasl: settings.sasl,
    membership: settings.membership,
    producer: settings.producer,
  });
  await bus.start();
  return bus;
}
