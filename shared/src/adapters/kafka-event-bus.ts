import {
  CompressionTypes,
  Kafka,
  Partitioners,
  logLevel,
  type Admin,
  type SASLOptions,
  type ProducerBatch,
  type Consumer,
  type Producer,
  type KafkaMessage,
  type IHeaders,
  type Message,
} from 'kafkajs';
import { setTimeout as delay } from 'node:timers/promises';
import type { ConnectionOptions } from 'node:tls';
import type { Logger } from 'pino';
import type {
  BatchInfo,
  ConsumedFrom,
  EventBus,
  SubscribeBatchOptions,
  SubscribeOptions,
  Subscription,
} from '../events/bus';
import { decodeEvent, validateEvent, type AnyEvent } from '../events/envelope';
import { TOPIC_OF, Topics } from '../events/topics';
import { runWithRetries } from './handler-retries';
import { countDeadLetter, observeConsumer } from './kafka-metrics';
import { eventPublishSeconds, kafkaProducedEvents, kafkaProduceSeconds } from './command-metrics';
import {
  DEFAULT_GROUP_MEMBERSHIP,
  DEFAULT_PRODUCER_TUNING,
  type GroupMembership,
  type ProducerTuning,
} from './kafka-settings';
import {
  DependencyGuard,
  dependencyHealth,
  type DependencyProbe,
} from '../resilience/dependencies';
import { contextFromCarrier, kafkaHeaderGetter } from '../tracing/propagation';
import {
  describeConsumed,
  rememberConsumed,
  tracePublish,
  traceConsume,
} from '../tracing/messaging';

export interface KafkaBusOptions {
  brokers: string[];
  clientId: string;
  logger: Logger;
  /** Partitions for topics this bus creates. */
  partitions?: number;
  replicationFactor?: number;
  /** Handler attempts per message before it goes to the dead-letter topic. */
  maxAttempts?: number;
  retryBaseMs?: number;
  /** Partitions of a batch subscription handled at the same time (default: partitions; one batch at a time each). */
  partitionsConsumedConcurrently?: number;
  /** A send not acknowledged within this long fails (default DEFAULT_KAFKA_SEND_TIMEOUT_MS). */
  sendTimeoutMs?: number;
  /** Prepended to every topic name (KAFKA_TOPIC_PREFIX): several environments on one cluster. */
  topicPrefix?: string;
  /** TLS and SASL towards the brokers (KAFKA_SSL*, KAFKA_SASL_*; see kafka-settings.ts). */
  ssl?: true | ConnectionOptions;
  sasl?: SASLOptions;
  /** Consumer group timing (KAFKA_SESSION_TIMEOUT_MS etc.; default DEFAULT_GROUP_MEMBERSHIP). */
  membership?: GroupMembership;
  /** Linger and compression of produce requests (KAFKA_LINGER_MS, KAFKA_COMPRESSION). */
  producer?: ProducerTuning;
  /** After a failed publish, how often a reconnect is tried to see Kafka back (default 1 s). */
  healthRecheckMs?: number;
}

/**
 * A send Kafka has not acknowledged within this long fails (KAFKA_SEND_TIMEOUT_MS): a healthy
 * cluster acknowledges in milliseconds, and a caller waiting on a publish must get its 503
 * within about a second when Kafka is gone.
 */
export const DEFAULT_KAFKA_SEND_TIMEOUT_MS = 1000;
/** As the publish breaker's half-open delay: Kafka's return is seen within about a second. */
const DEFAULT_HEALTH_RECHECK_MS = 1000;
/** A consumer kafkajs stopped for good is replaced after this long (again while that fails). */
const CONSUMER_REOPEN_MS = 1000;

/** What handling an event needs of its consumer: the group heartbeat, and whether it still runs. */
interface HandlingControl {
  heartbeat: () => Promise<void>;
  running: () => boolean;
}

/** A produce request stays well under the broker's default message.max.bytes (1 MiB). */
const MAX_BATCH_BYTES = 512 * 1024;
const MAX_BATCH_EVENTS = 1000;

interface QueuedMessage {
  topic: string;
  message: Message;
  bytes: number;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** A batch's messages grouped by topic, in publish order within each topic. */
function topicMessagesOf(batch: QueuedMessage[]): ProducerBatch['topicMessages'] {
  const byTopic = new Map<string, Message[]>();
  for (const { topic, message } of batch) {
    const messages = byTopic.get(topic);
    if (messages) messages.push(message);
    else byTopic.set(topic, [message]);
  }
  return [...byTopic].map(([topic, messages]) => ({ topic, messages }));
}

/**
 * Kafka implementation of the event bus. Messages are keyed by organization (ordering per
 * organization), produced with acks=all by an idempotent producer, and consumed at least once:
 * a message's offset is committed only after its handler resolved, so a crash re-delivers it.
 * A message that fails validation, or whose handler keeps failing, goes to the dead-letter topic
 * with the reason in its headers, so one poison message never blocks a partition; a handler that
 * fails because a dependency is down is retried until it is back (runWithRetries).
 */
export class KafkaEventBus implements EventBus {
  private readonly kafka: Kafka;
  private producer: Producer;
  /** The consumers running, each with its state: a handler waiting out an outage stops once it is closed. */
  private readonly consumers = new Set<ConsumerState>();
  private connected?: Promise<void>;
  /**
   * This bus's publishes' view of Kafka (open from start to close). Each consumer reports through
   * a probe of its own: a consumer's fetches going well must not hide publishes that fail (after a
   * broker restart the fetches resume while the producer's sends can still be refused).
   */
  private health?: DependencyProbe;
  /**
   * Publishes go through Kafka's breaker, which one failed send opens: a healthy cluster never
   * takes a second to acknowledge, and a call that publishes twice must not wait twice.
   */
  private readonly guard = new DependencyGuard(
    'kafka',
    () => true,
    {
      report: (up) => {
        this.health?.report(up);
        if (!up) this.recheckLater();
      },
      close: () => undefined,
    },
    1,
  );
  /** Pending check of whether publishes would go through again (see recheckLater). */
  private recheck?: NodeJS.Timeout;
  /** Events waiting for the producer's next request (see flush). */
  private readonly queued: QueuedMessage[] = [];
  private flushing = false;

  constructor(private readonly options: KafkaBusOptions) {
    this.kafka = new Kafka({
      clientId: options.clientId,
      brokers: options.brokers,
      ssl: options.ssl,
      sasl: options.sasl,
      logLevel: logLevel.WARN,
      logCreator:
        () =>
        ({ level, log }) => {
          const { message, ...extra } = log;
          if (level <= logLevel.ERROR) options.logger.error({ kafka: extra }, message);
          else options.logger.warn({ kafka: extra }, message);
        },
      retry: { initialRetryTime: 200, retries: 10, maxRetryTime: 5000 },
      // A request to a broker that went away fails after this long instead of holding the queue.
      requestTimeout: 10_000,
    });
    this.producer = this.newProducer();
  }

  private newProducer(): Producer {
    return this.kafka.producer({
      idempotent: true,
      maxInFlightRequests: 1,
      allowAutoTopicCreation: false,
      createPartitioner: Partitioners.DefaultPartitioner,
    });
  }

  /**
   * After a failed send the idempotent producer can be left with a sequence the broker no longer
   * accepts (e.g. after a broker restart); the next publish starts with a fresh producer id.
   */
  private replaceProducer(broken: Producer): void {
    if (broken !== this.producer) return; // a concurrent failure already replaced it
    this.producer = this.newProducer();
    this.connected = undefined;
    // Not awaited: a producer stuck on a dead broker may not disconnect promptly either.
    void broken.disconnect().catch(() => undefined);
  }

  /** Connects the producer and creates the topics (idempotent). */
  start(): Promise<void> {
    this.health ??= dependencyHealth.probe('kafka');
    // A failed connect is forgotten, so the next publish tries again.
    this.connected ??= this.connect().catch((error: unknown) => {
      this.connected = undefined;
      throw error;
    });
    return this.connected;
  }

  /**
   * After a failed publish Kafka reads down for publishes until one succeeds or, tried every
   * healthRecheckMs, the producer connects again (a process that publishes rarely must not read
   * down long after Kafka is back).
   */
  private recheckLater(): void {
    if (this.recheck || !this.health) return;
    this.recheck = setTimeout(() => {
      this.recheck = undefined;
      const limitMs = this.options.sendTimeoutMs ?? DEFAULT_KAFKA_SEND_TIMEOUT_MS;
      withinTime(this.start(), limitMs, 'Kafka connect').then(
        () => this.health?.report(true),
        () => this.recheckLater(),
      );
    }, this.options.healthRecheckMs ?? DEFAULT_HEALTH_RECHECK_MS);
    this.recheck.unref();
  }

  /**
   * Sends the event; resolves once Kafka acknowledged it. While Kafka is unreachable it fails
   * within the send time limit, and once the breaker opened at once, with a
   * DependencyUnavailableError (503 unavailable for a caller, an outbox entry for outboxed events).
   */
  async publish(event: AnyEvent): Promise<void> {
    const valid = validateEvent(event);
    const topic = TOPIC_OF[valid.type];
    const value = JSON.stringify(valid);
    const startedAt = process.hrtime.bigint();
    await this.guard.run(async () => {
      // Connecting retries for a long time when no broker answers: a publish waits no longer than a send.
      await withinTime(
        this.start(),
        this.options.sendTimeoutMs ?? DEFAULT_KAFKA_SEND_TIMEOUT_MS,
        'Kafka connect',
      );
      await tracePublish('kafka', topic, valid, (trace) =>
        this.enqueue(this.physical(topic), {
          key: valid.organization,
          value,
          // The trace context (traceparent, tracestate) travels in the headers: the consumer's span continues it.
          headers: { ...trace, 'event-id': valid.id, 'event-type': valid.type },
        }),
      );
    });
    eventPublishSeconds.observe({ topic }, Number(process.hrtime.bigint() - startedAt) / 1e9);
  }

  /** Queues a message for the flusher; resolves once the batch carrying it is acknowledged. */
  private enqueue(topic: string, message: Message & { value: string }): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queued.push({ topic, message, bytes: message.value.length, resolve, reject });
      if (!this.flushing) void this.flush();
    });
  }

  /**
   * Group commit: the idempotent producer has one request in flight, so events published while
   * it is out wait and go together in the next request, each caller answered when its batch is
   * acknowledged. One event alone goes at once (no linger by default); under load a request
   * carries many, so throughput is not capped at one produce round trip per call.
   */
  private async flush(): Promise<void> {
    this.flushing = true;
    try {
      const { lingerMs, compression } = this.options.producer ?? DEFAULT_PRODUCER_TUNING;
      while (this.queued.length > 0) {
        if (lingerMs > 0 && this.queued.length < MAX_BATCH_EVENTS) await delay(lingerMs);
        const batch = this.takeBatch();
        try {
          const sentAt = process.hrtime.bigint();
          await this.send({
            acks: -1,
            topicMessages: topicMessagesOf(batch),
            compression: compression === 'gzip' ? CompressionTypes.GZIP : CompressionTypes.None,
          });
          kafkaProduceSeconds.observe(Number(process.hrtime.bigint() - sentAt) / 1e9);
          kafkaProducedEvents.inc(batch.length);
          for (const entry of batch) entry.resolve();
        } catch (error) {
          for (const entry of batch) entry.reject(error);
        }
      }
    } finally {
      this.flushing = false;
    }
  }

  /** The oldest queued events up to MAX_BATCH_EVENTS and MAX_BATCH_BYTES (at least one). */
  private takeBatch(): QueuedMessage[] {
    let count = 0;
    let bytes = 0;
    while (count < this.queued.length && count < MAX_BATCH_EVENTS) {
      bytes += this.queued[count]!.bytes;
      if (count > 0 && bytes > MAX_BATCH_BYTES) break;
      count++;
    }
    return this.queued.splice(0, count);
  }

  /**
   * kafkajs can leave a send pending forever when the broker restarts under it, so a send has a
   * time limit; past it the send counts as failed (the event may still arrive: consumers dedupe
   * by event id).
   */
  private async send(batch: ProducerBatch): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const limitMs = this.options.sendTimeoutMs ?? DEFAULT_KAFKA_SEND_TIMEOUT_MS;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`Kafka send did not complete within ${limitMs} ms`)),
        limitMs,
      );
    });
    const producer = this.producer;
    try {
      await Promise.race([producer.sendBatch(batch), timeout]);
    } catch (error) {
      this.options.logger.warn(
        { error: errorText(error) },
        'publish failed: replacing the Kafka producer',
      );
      this.replaceProducer(producer);
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  async subscribe(options: SubscribeOptions): Promise<Subscription> {
    return this.consume(options.group, options.topics, {}, (consumer, running) =>
      consumer.run({
        autoCommit: true,
        eachMessage: async ({ topic, partition, message, heartbeat }) => {
          const parent = contextFromCarrier(message.headers, kafkaHeaderGetter);
          await traceConsume('kafka', this.logical(topic), options.group, parent, async (span) => {
            const event = await this.decode(options.group, topic, partition, message);
            if (!event) return;
            describeConsumed(span, event);
            await this.handle(options.group, topic, partition, message, event, options.handler, {
              heartbeat,
              running,
            });
          });
        },
      }),
    );
  }

  /**
   * Batches as fetched, cut into chunks of maxBatchSize. While a chunk's handler runs, a timer
   * keeps heartbeating, so a slow database never gets the member evicted from its group. With
   * one batch in flight (the default), each chunk's last offset is resolved and committed once its
   * handler resolved; with more (options.inFlight), see PipelinedPartition. A chunk may repeat
   * what another member handled (BatchInfo.mayRepeat) when it lies below the partition's end as
   * it was when this member was given the partition: the previous owner may have reached that far
   * without committing it.
   */
  async subscribeBatch(options: SubscribeBatchOptions): Promise<Subscription> {
    const maxBatchSize = options.maxBatchSize ?? 500;
    const inFlight = Math.max(1, options.inFlight ?? 1);
    // A fetch returns once it has about half a batch of bytes or maxWaitMs has passed.
    const fetching = options.maxWaitMs
      ? { minBytes: maxBatchSize * 256, maxWaitTimeInMs: options.maxWaitMs }
      : {};
    return this.consume(options.group, options.topics, fetching, (consumer, running, track) => {
      /** Per topic-partition: the end of the log when this member first fetched it since it joined. */
      const handedOver = new Map<string, bigint>();
      const pipelines = new Map<string, PipelinedPartition>();
      consumer.on(consumer.events.GROUP_JOIN, () => {
        handedOver.clear();
        pipelines.clear();
      });
      return consumer.run({
        // Pipelined batches are committed here, in order, once handled.
        autoCommit: inFlight === 1,
        eachBatchAutoResolve: false,
        partitionsConsumedConcurrently: this.concurrency(),
        eachBatch: async ({
          batch,
          resolveOffset,
          heartbeat,
          commitOffsetsIfNecessary,
          isRunning,
          isStale,
        }) => {
          const { topic, partition } = batch;
          const key = `${topic}:${partition}`;
          if (!handedOver.has(key)) handedOver.set(key, BigInt(batch.highWatermark));
          let pipeline = pipelines.get(key);
          if (inFlight > 1 && !pipeline) {
            pipeline = new PipelinedPartition(
              consumer,
              topic,
              partition,
              inFlight,
              (offset) => {
                // Everything from the failed batch on comes again, possibly repeated.
                const horizon = handedOver.get(key) ?? 0n;
                if (offset > horizon) handedOver.set(key, offset);
              },
              this.options.logger,
            );
            pipelines.set(key, pipeline);
            track(pipeline);
          }
          for (let start = 0; start < batch.messages.length; start += maxBatchSize) {
            if (!isRunning() || isStale()) return;
            const chunk = batch.messages.slice(start, start + maxBatchSize);
            const items: Array<{ message: KafkaMessage; event: AnyEvent }> = [];
            for (const message of chunk) {
              const event = await this.decode(options.group, topic, partition, message);
              if (!event) continue;
              // Each event is handled in its publisher's trace wherever the batch handler takes it up.
              rememberConsumed(event, {
                system: 'kafka',
                topic: this.logical(topic),
                group: options.group,
                parent: contextFromCarrier(message.headers, kafkaHeaderGetter),
              });
              items.push({ message, event });
            }
            const info = { mayRepeat: BigInt(chunk[0]!.offset) < handedOver.get(key)! };
            const handled = whileHeartbeating(
              heartbeat,
              this.membership().heartbeatIntervalMs,
              () =>
                this.handleBatch(options, topic, partition, items, info, {
                  heartbeat,
                  running: () => running() && isRunning() && !isStale(),
                }),
            );
            const last = chunk[chunk.length - 1]!.offset;
            if (pipeline) {
              resolveOffset(last);
              await pipeline.add(BigInt(chunk[0]!.offset), BigInt(last), handled);
              continue;
            }
            await handled;
            resolveOffset(last);
            await heartbeat();
            await commitOffsetsIfNecessary();
          }
        },
      });
    });
  }

  private membership(): GroupMembership {
    return this.options.membership ?? DEFAULT_GROUP_MEMBERSHIP;
  }

  private concurrency(): number {
    return this.options.partitionsConsumedConcurrently ?? this.options.partitions ?? 3;
  }

  private async consume(
    group: string,
    topics: string[],
    fetching: { minBytes?: number; maxWaitTimeInMs?: number },
    run: (
      consumer: Consumer,
      running: () => boolean,
      track: (pipeline: PipelinedPartition) => void,
    ) => Promise<void>,
  ): Promise<Subscription> {
    await this.start();
    const health = dependencyHealth.probe('kafka');
    const state: ConsumerState = { running: true, pipelines: new Set(), health };
    const open = async (): Promise<void> => {
      const consumer = this.newConsumer(group, fetching);
      state.consumer = consumer;
      watchConsumerHealth(consumer, (up) => health.report(up));
      consumer.on(consumer.events.CRASH, ({ payload }) => {
        // kafkajs restarts a consumer after a retriable error only. One that gave up (e.g.
        // "Failed to find group coordinator" while the broker shuts down) would never fetch
        // again: its events would wait and its view would read Kafka down for good.
        if (!payload.restart && state.running && state.consumer === consumer)
          this.reopenLater(group, state, open, payload.error);
      });
      try {
        await consumer.connect();
        // A new group reads from the beginning so nothing published before it existed is missed.
        await consumer.subscribe({
          topics: topics.map((t) => this.physical(t)),
          fromBeginning: true,
        });
        await run(
          consumer,
          () => state.running,
          (pipeline) => state.pipelines.add(pipeline),
        );
        // Closed while a replacement was starting: it must not run on.
        if (!state.running) await consumer.disconnect();
      } catch (error) {
        void consumer.disconnect().catch(() => undefined);
        throw error;
      }
    };
    try {
      await open();
    } catch (error) {
      health.close();
      throw error;
    }
    this.consumers.add(state);
    return {
      close: async () => {
        this.consumers.delete(state);
        await stopConsumer(state);
      },
    };
  }

  private newConsumer(
    group: string,
    fetching: { minBytes?: number; maxWaitTimeInMs?: number },
  ): Consumer {
    const membership = this.membership();
    const consumer = this.kafka.consumer({
      // An idle member heartbeats when its fetch returns: within a heartbeat interval, so it hears
      // of a rebalance in time to rejoin it.
      maxWaitTimeInMs: membership.heartbeatIntervalMs,
      ...fetching,
      // Prefixed like the topics: environments sharing a cluster must not share consumer groups.
      groupId: this.physical(group),
      allowAutoTopicCreation: false,
      sessionTimeout: membership.sessionTimeoutMs,
      rebalanceTimeout: membership.rebalanceTimeoutMs,
      heartbeatInterval: membership.heartbeatIntervalMs,
    });
    observeConsumer(consumer, group, (topic) => this.logical(topic));
    this.logMembership(consumer, group);
    return consumer;
  }

  /**
   * A new consumer in place of one kafkajs stopped for good, tried every CONSUMER_REOPEN_MS
   * until it runs (while Kafka is away connecting fails). Its batches not committed come again.
   */
  private reopenLater(
    group: string,
    state: ConsumerState,
    open: () => Promise<void>,
    cause: unknown,
  ): void {
    if (state.reopen) return;
    this.options.logger.warn(
      { group, error: errorText(cause) },
      'Kafka consumer stopped by its client: starting a new one',
    );
    state.reopen = setTimeout(() => {
      state.reopen = undefined;
      if (!state.running) return;
      open().catch((error: unknown) => {
        if (state.running) this.reopenLater(group, state, open, error);
      });
    }, CONSUMER_REOPEN_MS);
  }

  /**
   * When the member joined its group, how long the join took and when it first handled a batch:
   * after a kill -9 a restarted member can wait out the dead one before it is given partitions.
   */
  private logMembership(consumer: Consumer, group: string): void {
    const created = performance.now();
    let firstBatch = true;
    consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
      firstBatch = true;
      this.options.logger.info(
        {
          group,
          // Names this process in the group's description (a replica's partitions, by member).
          memberId: payload.memberId,
          joinMs: payload.duration,
          sinceStartMs: Math.round(performance.now() - created),
          partitions: Object.values(payload.memberAssignment).flat().length,
          leader: payload.isLeader,
        },
        'joined the consumer group',
      );
    });
    consumer.on(consumer.events.START_BATCH_PROCESS, ({ payload }) => {
      if (!firstBatch) return;
      firstBatch = false;
      this.options.logger.info(
        {
          group,
          topic: this.logical(payload.topic),
          sinceStartMs: Math.round(performance.now() - created),
          offsetLag: payload.offsetLag,
        },
        'first batch since joining',
      );
    });
  }

  async close(): Promise<void> {
    this.health?.close();
    this.health = undefined;
    clearTimeout(this.recheck);
    this.recheck = undefined;
    await Promise.all([...this.consumers].map(stopConsumer));
    this.consumers.clear();
    if (this.connected) await this.producer.disconnect();
    this.connected = undefined;
  }

  /** The Kafka topic name of a logical topic. */
  physical(topic: string): string {
    return `${this.options.topicPrefix ?? ''}${topic}`;
  }

  /** The logical topic of a Kafka topic name (metrics are labelled without the prefix). */
  private logical(topic: string): string {
    const prefix = this.options.topicPrefix ?? '';
    return topic.startsWith(prefix) ? topic.slice(prefix.length) : topic;
  }

  private async connect(): Promise<void> {
    const admin = this.kafka.admin();
    await admin.connect();
    try {
      const existing = new Set(await admin.listTopics());
      const missing = Object.values(Topics)
        .map((t) => this.physical(t))
        .filter((t) => !existing.has(t));
      if (missing.length > 0) {
        await admin.createTopics({
          waitForLeaders: false,
          topics: missing.map((topic) => ({
            topic,
            numPartitions: this.options.partitions ?? 3,
            replicationFactor: this.options.replicationFactor ?? 1,
          })),
        });
        await waitForLeaders(admin, missing);
      }
    } finally {
      await admin.disconnect();
    }
    await this.producer.connect();
  }

  /** The event of a message; an undecodable one goes to the dead letters (undefined). */
  private async decode(
    group: string,
    topic: string,
    partition: number,
    message: KafkaMessage,
  ): Promise<AnyEvent | undefined> {
    try {
      return decodeEvent(message.value ?? Buffer.alloc(0));
    } catch (error) {
      await this.deadLetterMessage(group, topic, partition, message, errorText(error), 0);
      return undefined;
    }
  }

  /** The whole batch with retries; if it keeps failing, event by event (only the culprit is dead-lettered). */
  private async handleBatch(
    options: SubscribeBatchOptions,
    topic: string,
    partition: number,
    items: Array<{ message: KafkaMessage; event: AnyEvent }>,
    info: BatchInfo,
    control: HandlingControl,
  ): Promise<void> {
    if (items.length === 0) return;
    const one = (event: AnyEvent) => options.handler([event], info);
    if (items.length === 1)
      return this.handle(
        options.group,
        topic,
        partition,
        items[0]!.message,
        items[0]!.event,
        one,
        control,
      );
    const failed = await this.attempt(
      options.group,
      items[0]!.event.id,
      () =>
        options.handler(
          items.map((i) => i.event),
          info,
        ),
      control,
    );
    if (failed === undefined) return;
    this.options.logger.warn(
      { group: options.group, events: items.length, error: failed },
      'event batch keeps failing: handling its events one by one',
    );
    for (const item of items)
      await this.handle(options.group, topic, partition, item.message, item.event, one, control);
  }

  private async handle(
    group: string,
    topic: string,
    partition: number,
    message: KafkaMessage,
    event: AnyEvent,
    handler: (event: AnyEvent) => Promise<void>,
    control: HandlingControl,
  ): Promise<void> {
    const failed = await this.attempt(group, event.id, () => handler(event), control);
    if (failed !== undefined)
      await this.deadLetterMessage(
        group,
        topic,
        partition,
        message,
        failed,
        this.options.maxAttempts ?? 5,
      );
  }

  /** Runs work with retries (see runWithRetries); returns the last error, or undefined once it succeeded. */
  private attempt(
    group: string,
    eventId: string,
    work: () => Promise<void>,
    control: HandlingControl,
  ): Promise<string | undefined> {
    return runWithRetries(work, {
      maxAttempts: this.options.maxAttempts ?? 5,
      retryBaseMs: this.options.retryBaseMs ?? 200,
      running: control.running,
      beforeRetry: control.heartbeat,
      onFailure: ({ attempt, error, dependency }) =>
        this.options.logger.warn(
          { group, eventId, attempt, error, ...(dependency && { dependency }) },
          dependency
            ? 'event handler failed on a dependency outage; retrying until it is back'
            : 'event handler failed',
        ),
    });
  }

  /** A consumed event its handler refused: to the dead letters with the reason, counted as rejected. */
  async deadLetter(event: AnyEvent, reason: string, consumed: ConsumedFrom): Promise<void> {
    await this.send({
      acks: -1,
      topicMessages: [
        {
          topic: this.physical(Topics.deadLetter),
          messages: [
            {
              key: event.organization,
              value: JSON.stringify(event),
              headers: {
                'event-id': event.id,
                'event-type': event.type,
                'dlq-reason': reason.slice(0, 1000),
                'dlq-source-topic': this.physical(consumed.topic),
                'dlq-group': consumed.group,
                'dlq-attempts': '0',
              },
            },
          ],
        },
      ],
    });
    countDeadLetter(consumed.group, consumed.topic, 'rejected');
    this.options.logger.warn(
      { group: consumed.group, topic: consumed.topic, eventId: event.id, reason },
      'event refused by its handler: sent to the dead-letter topic',
    );
  }

  private async deadLetterMessage(
    group: string,
    topic: string,
    partition: number,
    message: KafkaMessage,
    reason: string,
    attempts: number,
  ): Promise<void> {
    const headers: IHeaders = {
      ...message.headers,
      'dlq-reason': reason.slice(0, 1000),
      'dlq-source-topic': topic,
      'dlq-source-partition': String(partition),
      'dlq-source-offset': message.offset,
      'dlq-group': group,
      'dlq-attempts': String(attempts),
    };
    // If this send fails the handler throws, the offset is not committed and the message is retried.
    await this.send({
      acks: -1,
      topicMessages: [
        {
          topic: this.physical(Topics.deadLetter),
          messages: [{ key: message.key, value: message.value, headers }],
        },
      ],
    });
    countDeadLetter(group, this.logical(topic), attempts === 0 ? 'invalid' : 'handler_failed');
    this.options.logger.error(
      { group, topic, offset: message.offset, reason },
      'event sent to the dead-letter topic',
    );
  }
}

interface ConsumerState {
  /** The kafkajs consumer now (a new one replaces one that stopped for good). */
  consumer?: Consumer;
  running: boolean;
  /** Pipelined partitions with batches whose offsets are still to be committed. */
  pipelines: Set<PipelinedPartition>;
  /** This consumer's view of Kafka, closed with it. */
  health: DependencyProbe;
  /** Pending start of a new consumer (see reopenLater). */
  reopen?: NodeJS.Timeout;
}

/** Stops a consumer: batches in flight finish (and are committed) before it leaves its group. */
async function stopConsumer(state: ConsumerState): Promise<void> {
  state.running = false;
  clearTimeout(state.reopen);
  state.health.close();
  await Promise.all([...state.pipelines].map((p) => p.drained()));
  await state.consumer?.disconnect();
}

/**
 * One partition's batches handled at once (inFlight): each is handed over as soon as it is
 * fetched (its offset resolved, so fetching goes on), up to inFlight unfinished, and committed in
 * order once it and every batch before it were handled. A batch whose handling failed (the
 * consumer stopped while its handler waited out an outage, a dead letter could not be sent) is
 * not committed: the partition is moved back to it, so it and everything after it come again.
 */
class PipelinedPartition {
  private unfinished = 0;
  private chain: Promise<void> = Promise.resolve();
  private room?: () => void;
  /** Batches fetched before a failed one moved the partition back are not committed. */
  private generation = 0;
  /** The last offset handed over. */
  private highest = -1n;

  constructor(
    private readonly consumer: Consumer,
    private readonly topic: string,
    private readonly partition: number,
    private readonly inFlight: number,
    private readonly onRewind: (offset: bigint) => void,
    private readonly logger: Logger,
  ) {}

  /** Takes a batch being handled; resolves once there is room for another. */
  async add(first: bigint, last: bigint, handled: Promise<void>): Promise<void> {
    this.unfinished++;
    if (last > this.highest) this.highest = last;
    const generation = this.generation;
    const outcome = handled.then(
      () => true,
      (error: unknown) => {
        this.logger.warn(
          { topic: this.topic, partition: this.partition, error: errorText(error) },
          'event batch not handled: it comes again',
        );
        return false;
      },
    );
    this.chain = this.chain.then(async () => {
      const ok = await outcome;
      this.unfinished--;
      this.room?.();
      if (generation !== this.generation) return;
      if (ok) await this.commit(last + 1n);
      else this.rewind(first);
    });
    while (this.unfinished >= this.inFlight)
      await new Promise<void>((resolve) => (this.room = resolve));
  }

  /** Resolves once every batch taken is handled and committed (or moved back). */
  drained(): Promise<void> {
    return this.chain;
  }

  private async commit(offset: bigint): Promise<void> {
    const { topic, partition } = this;
    // A commit refused (a rebalance took the partition) leaves the batch to its next owner.
    await this.consumer
      .commitOffsets([{ topic, partition, offset: offset.toString() }])
      .catch((error: unknown) =>
        this.logger.warn({ topic, partition, error: errorText(error) }, 'offset commit failed'),
      );
  }

  private rewind(first: bigint): void {
    this.generation++;
    // Batches after it may have been handled too: all of them come again as possible repeats.
    this.onRewind(this.highest + 1n);
    try {
      this.consumer.seek({
        topic: this.topic,
        partition: this.partition,
        offset: first.toString(),
      });
    } catch {
      // Not running any more: the uncommitted batch goes to the partition's next owner.
    }
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Heartbeats every interval while work runs (kafkajs sends at most one per heartbeatInterval).
 * Failures are left to the heartbeat after the work, which lets a rebalance interrupt the batch.
 */
async function whileHeartbeating<T>(
  heartbeat: () => Promise<void>,
  intervalMs: number,
  work: () => Promise<T>,
): Promise<T> {
  const timer = setInterval(() => void heartbeat().catch(() => undefined), intervalMs);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}

/** Metadata errors a just-created topic answers with until its partitions have leaders. */
const SETTLING = new Set(['UNKNOWN_TOPIC_OR_PARTITION', 'LEADER_NOT_AVAILABLE']);
const LEADERS_TIMEOUT_MS = 30_000;

/**
 * Polls the topics' metadata until every partition has a leader. kafkajs's own wait
 * (`waitForLeaders: true`) retries only LEADER_NOT_AVAILABLE, but a KRaft broker that has just
 * started can answer UNKNOWN_TOPIC_OR_PARTITION for a topic it created a moment ago (seen in this
 * project's tests right after infra.sh start), so both are waited out here.
 */
async function waitForLeaders(admin: Admin, topics: string[]): Promise<void> {
  const deadline = Date.now() + LEADERS_TIMEOUT_MS;
  for (;;) {
    try {
      const { topics: found } = await admin.fetchTopicMetadata({ topics });
      if (found.every((t) => t.partitions.length > 0 && t.partitions.every((p) => p.leader >= 0)))
        return;
    } catch (error) {
      if (!SETTLING.has(kafkaErrorType(error)) || Date.now() > deadline) throw error;
    }
    if (Date.now() > deadline)
      throw new Error(
        `Kafka topics without partition leaders after ${LEADERS_TIMEOUT_MS} ms: ${topics.join(', ')}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A kafkajs protocol error's type, also when it comes wrapped after kafkajs's own retries. */
function kafkaErrorType(error: unknown): string {
  const e = error as {
    type?: string;
    originalError?: { type?: string };
    cause?: { type?: string };
  };
  return e?.type ?? e?.originalError?.type ?? e?.cause?.type ?? '';
}

/** A consumer's fetches tell the process's dependency health that Kafka answers; its failures that it does not. */
function watchConsumerHealth(consumer: Consumer, report: (up: boolean) => void): void {
  const { FETCH, CRASH, REQUEST_TIMEOUT } = consumer.events;
  consumer.on(FETCH, () => report(true));
  // DISCONNECT is not one: a subscription closed on purpose disconnects too.
  for (const failure of [CRASH, REQUEST_TIMEOUT]) consumer.on(failure, () => report(false));
}

/** The promise's outcome, or a failure once ms have passed (the promise itself keeps running). */
function withinTime<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not complete within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
