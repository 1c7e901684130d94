import type { AnyEvent } from './envelope';
import type { Topic } from './topics';

export type EventHandler = (event: AnyEvent) => Promise<void>;

/** What a batch handler is told besides the events. */
export interface BatchInfo {
  /**
   * Some of the events may have been handled before by another member of the group: one that
   * died or lost the partition before it committed them (the events it may have reached).
   * Handlers that act outside their idempotent writes (an HTTP call) check what is done first.
   */
  mayRepeat: boolean;
}

/** Events of one partition, in order; at most the subscription's maxBatchSize. */
export type EventBatchHandler = (events: AnyEvent[], info: BatchInfo) => Promise<void>;

/** Where a dead-lettered event was consumed: the group and the topic. */
export interface ConsumedFrom {
  group: string;
  topic: Topic;
}

export interface Subscription {
  close(): Promise<void>;
}

export interface SubscribeOptions {
  /** Consumer group: every group sees every event once; members of a group share the work. */
  group: string;
  topics: Topic[];
  handler: EventHandler;
}

export interface SubscribeBatchOptions {
  group: string;
  topics: Topic[];
  handler: EventBatchHandler;
  /** Most events per handler call (default 500). */
  maxBatchSize?: number;
  /**
   * How long the bus may wait for more events before handing over a batch (default 0: at once).
   * Work whose cost is per batch (bulk writes) gets fewer, larger batches under a steady trickle.
   */
  maxWaitMs?: number;
  /**
   * Batches of one partition whose handlers run at once (default 1). With more, the next batch
   * is handed over while earlier ones still run (e.g. one sends while the one before writes), and
   * a batch is acknowledged once it and every batch before it resolved; a batch that fails is
   * delivered again with those after it. Handlers must not depend on earlier batches' completion.
   */
  inFlight?: number;
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
  /**
   * Like subscribe, but the handler gets what has arrived of one partition at once, in order, so
   * it can do its writes per batch. A batch is acknowledged when its handler resolves; a batch
   * that keeps failing is retried event by event, so only the event that fails alone goes to the
   * dead letters.
   */
  subscribeBatch(options: SubscribeBatchOptions): Promise<Subscription>;
  /**
   * Sends a consumed event its handler refuses (e.g. data that fails its type's schema) to the
   * dead-letter topic with the reason, counted; resolves once it is durably there, so the
   * handler may then treat the event as handled.
   */
  deadLetter(event: AnyEvent, reason: string, consumed: ConsumedFrom): Promise<void>;
  close(): Promise<void>;
}
