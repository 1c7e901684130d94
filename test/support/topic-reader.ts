import { Kafka, logLevel, type Consumer } from 'kafkajs';
import { uniqueName } from '@switchyard/shared/testing';
import type { AnyEvent } from '@switchyard/shared';

/** Reads every event of one Kafka topic from the beginning, as an independent consumer group. */
export class TopicReader {
  readonly events: AnyEvent[] = [];
  /** Each event's headers (as strings), by position in events. */
  readonly headers: Array<Record<string, string>> = [];
  private consumer?: Consumer;

  constructor(private readonly topic: string) {}

  async start(): Promise<this> {
    const kafka = new Kafka({
      brokers: process.env.KAFKA_BROKERS!.split(','),
      clientId: uniqueName('reader'),
      logLevel: logLevel.NOTHING,
    });
    this.consumer = kafka.consumer({ groupId: uniqueName('reader') });
    await this.consumer.connect();
    await this.consumer.subscribe({ topic: this.topic, fromBeginning: true });
    await this.consumer.run({
      eachMessage: async ({ message }) => {
        this.events.push(JSON.parse(message.value!.toString()) as AnyEvent);
        this.headers.push(
          Object.fromEntries(
            Object.entries(message.headers ?? {}).map(([name, value]) => [name, String(value)]),
          ),
        );
      },
    });
    return this;
  }

  async stop(): Promise<void> {
    await this.consumer?.disconnect();
  }
}
