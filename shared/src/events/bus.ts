import type { AnyEvent } from './envelope';
import type { Topic } from './topics';

export type EventHandler = (event: AnyEvent) => Promise<void>;

export interface Subscription {
  close(): Promise<void>;
}

export interface SubscribeOptions {
  /** Consumer group: every group sees every event once; members of a group share the work. */
  group: string;
  topics: Topic[];
  handler: EventHandler;
}

/**
 * The event bus port. Implementations: in-process (embedded mode) and Kafka.
 * Delivery is at least once: handlers must be idempotent by event id. A handler that keeps
 * failing sends the event to the dead-letter topic instead of blocking its partition.
 */
export interface EventBus {
  /** Validates the event and resolves once the bus has durably accepted it. */
  publish(event: AnyEvent): Promise<void>;
  subscribe(options: SubscribeOptions): Promise<Subscription>;
  close(): Promise<void>;
}
