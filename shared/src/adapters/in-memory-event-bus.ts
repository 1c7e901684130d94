import type { Logger } from 'pino';
import type {
  ConsumedFrom,
  EventBatchHandler,
  EventBus,
  SubscribeBatchOptions,
  SubscribeOptions,
  Subscription,
} from '../events/bus';
import { validateEvent, type AnyEvent } from '../events/envelope';
import { TOPIC_OF, type Topic } from '../events/topics';
import { RetriesStoppedError, runWithRetries } from './handler-retries';
import { contextFromCarrier, type TraceCarrier } from '../tracing/propagation';
import {
  describeConsumed,
  rememberConsumed,
  tracePublish,
  traceConsume,
} from '../tracing/messaging';

export interface DeadLetter {
  topic: Topic;
  group: string;
  event: AnyEvent;
  error: string;
  attempts: number;
  failedAt: string;
}

export interface InMemoryBusOptions {
  /** Attempts per event and group before it goes to the dead letters. */
  maxAttempts?: number;
  /** First retry delay; doubles each attempt. */
  retryBaseMs?: number;
  logger?: Logger;
}

/**
 * An event as published: its JSON, as Kafka carries it (each delivery parses its own copy, so no
 * handler shares the log's objects), and the publisher's trace context (Kafka's headers).
 */
interface LoggedEvent {
  id: string;
  json: string;
  trace?: TraceCarrier;
}

interface TopicLog {
  /** Offset of events[0]; earlier events were consumed by every group and dropped. */
  base: number;
  events: LoggedEvent[];
}

/** A subscriber: batch handlers take up to maxBatchSize events of one topic; plain ones take one. */
interface Member {
  handler: EventBatchHandler;
  maxBatchSize: number;
}

interface Group {
  name: string;
  topics: Set<Topic>;
  members: Member[];
  offsets: Map<Topic, number>;
  nextMember: number;
  draining: boolean;
}

/**
 * In-process event bus for embedded mode: an append-only log per topic and an offset per
 * consumer group, so it keeps the Kafka implementation's semantics (every group sees every
 * event, in order per topic, at least once, with retries and dead letters).
 */
export class InMemoryEventBus implements EventBus {
  readonly deadLetters: DeadLetter[] = [];
  private readonly logs = new Map<Topic, TopicLog>();
  private readonly groups = new Map<string, Group>();
  private readonly maxAttempts: number;
  private readonly retryBaseMs: number;
  private closed = false;

  constructor(private readonly options: InMemoryBusOptions = {}) {
    this.maxAttempts = options.maxAttempts ?? 5;
    this.retryBaseMs = options.retryBaseMs ?? 50;
  }

  async publish(event: AnyEvent): Promise<void> {
    if (this.closed) throw new Error('event bus is closed');
    const valid = validateEvent(event);
    const topic = TOPIC_OF[valid.type];
    await tracePublish('in_memory', topic, valid, async (trace) => {
      this.logOf(topic).events.push({ id: valid.id, json: JSON.stringify(valid), trace });
    });
    for (const group of this.groups.values()) {
      if (group.topics.has(topic)) this.drain(group);
    }
  }

  subscribe(options: SubscribeOptions): Promise<Subscription> {
    const handler = options.handler;
    return this.join(options.group, options.topics, {
      handler: (events) => handler(events[0]!),
      maxBatchSize: 1,
    });
  }

  subscribeBatch(options: SubscribeBatchOptions): Promise<Subscription> {
    return this.join(options.group, options.topics, {
      handler: options.handler,
      maxBatchSize: options.maxBatchSize ?? 500,
    });
  }

  /** A consumed event its handler refused: kept with the dead letters (attempts 0). */
  async deadLetter(event: AnyEvent, reason: string, consumed: ConsumedFrom): Promise<void> {
    this.deadLetters.push({
      topic: consumed.topic,
      group: consumed.group,
      event: structuredClone(event),
      error: reason,
      attempts: 0,
      failedAt: new Date().toISOString(),
    });
    this.options.logger?.warn(
      { group: consumed.group, eventId: event.id, type: event.type, reason },
      'event refused by its handler: sent to dead letters',
    );
  }

  private async join(name: string, topics: Topic[], member: Member): Promise<Subscription> {
    let group = this.groups.get(name);
    if (!group) {
      group = {
        name,
        topics: new Set(),
        members: [],
        offsets: new Map(),
        nextMember: 0,
        draining: false,
      };
      this.groups.set(name, group);
    }
    for (const topic of topics) {
      group.topics.add(topic);
      // A new group starts from the oldest retained event, so nothing published at boot is missed.
      if (!group.offsets.has(topic)) group.offsets.set(topic, this.logOf(topic).base);
    }
    group.members.push(member);
    this.drain(group);
    const owner = group;
    return {
      close: async () => {
        owner.members = owner.members.filter((m) => m !== member);
      },
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const group of this.groups.values()) group.members = [];
  }

  /** Events not yet handled by a group (its lag), for tests and readiness. */
  lag(groupName: string): number {
    const group = this.groups.get(groupName);
    if (!group) return 0;
    let lag = 0;
    for (const topic of group.topics) {
      const log = this.logOf(topic);
      lag += log.base + log.events.length - (group.offsets.get(topic) ?? log.base);
    }
    return lag;
  }

  private logOf(topic: Topic): TopicLog {
    let log = this.logs.get(topic);
    if (!log) {
      log = { base: 0, events: [] };
      this.logs.set(topic, log);
    }
    return log;
  }

  private drain(group: Group): void {
    if (group.draining || group.members.length === 0 || this.closed) return;
    group.draining = true;
    setImmediate(() => {
      void this.drainLoop(group).finally(() => {
        group.draining = false;
        if (this.lag(group.name) > 0 && group.members.length > 0 && !this.closed) this.drain(group);
      });
    });
  }

  private async drainLoop(group: Group): Promise<void> {
    for (;;) {
      const member = group.members[group.nextMember++ % Math.max(group.members.length, 1)];
      const next = member && this.nextFor(group, member.maxBatchSize);
      if (!member || !next || this.closed) return;
      try {
        await this.deliver(group, member, next.topic, next.events);
      } catch (error) {
        // The member left while its handler waited out an outage: the events stay unhandled.
        if (error instanceof RetriesStoppedError) return;
        throw error;
      }
      group.offsets.set(next.topic, next.offset + next.events.length);
      this.compact(next.topic);
    }
  }

  /** The next events of the first topic with any, at most max of them. */
  private nextFor(
    group: Group,
    max: number,
  ): { topic: Topic; offset: number; events: LoggedEvent[] } | undefined {
    for (const topic of group.topics) {
      const log = this.logOf(topic);
      const offset = group.offsets.get(topic) ?? log.base;
      const events = log.events.slice(offset - log.base, offset - log.base + max);
      if (events.length > 0) return { topic, offset, events };
    }
    return undefined;
  }

  /** The batch with retries; if it keeps failing, event by event, so only the failing one is dead-lettered. */
  private async deliver(
    group: Group,
    member: Member,
    topic: Topic,
    events: LoggedEvent[],
  ): Promise<void> {
    const failed = await this.attempt(group, member, events[0]!.id, () =>
      this.handOver(group, member, topic, events),
    );
    if (failed === undefined) return;
    if (events.length > 1) {
      for (const logged of events) await this.deliver(group, member, topic, [logged]);
      return;
    }
    const event = JSON.parse(events[0]!.json) as AnyEvent;
    this.deadLetters.push({
      topic,
      group: group.name,
      event,
      error: failed,
      attempts: this.maxAttempts,
      failedAt: new Date().toISOString(),
    });
    this.options.logger?.error(
      { group: group.name, eventId: event.id, type: event.type, error: failed },
      'event sent to dead letters',
    );
  }

  /**
   * Copies of the events to the member (a handler never shares the log's objects). A plain
   * subscriber's event is handled in a consumer span continuing the publisher's trace; a batch's
   * events each carry theirs to where the handler takes them up (inConsumedTrace).
   */
  private handOver(
    group: Group,
    member: Member,
    topic: Topic,
    events: LoggedEvent[],
  ): Promise<void> {
    const copies = events.map(({ json, trace }) => {
      const copy = JSON.parse(json) as AnyEvent;
      rememberConsumed(copy, {
        system: 'in_memory',
        topic,
        group: group.name,
        parent: contextFromCarrier(trace),
      });
      return copy;
    });
    // One process: no other member can have handled them.
    if (member.maxBatchSize > 1) return member.handler(copies, { mayRepeat: false });
    return traceConsume(
      'in_memory',
      topic,
      group.name,
      contextFromCarrier(events[0]!.trace),
      (span) => {
        describeConsumed(span, copies[0]!);
        return member.handler(copies, { mayRepeat: false });
      },
    );
  }

  /** Runs work with retries (see runWithRetries); returns the last error, or undefined once it succeeded. */
  private attempt(
    group: Group,
    member: Member,
    eventId: string,
    work: () => Promise<void>,
  ): Promise<string | undefined> {
    return runWithRetries(work, {
      maxAttempts: this.maxAttempts,
      retryBaseMs: this.retryBaseMs,
      running: () => !this.closed && group.members.includes(member),
      onFailure: ({ attempt, error, dependency }) =>
        this.options.logger?.warn(
          { group: group.name, eventId, attempt, error, ...(dependency && { dependency }) },
          'event handler failed',
        ),
    });
  }

  /** Drops events every subscribed group has handled. */
  private compact(topic: Topic): void {
    const log = this.logOf(topic);
    let minOffset = Infinity;
    for (const group of this.groups.values()) {
      if (group.topics.has(topic))
        minOffset = Math.min(minOffset, group.offsets.get(topic) ?? log.base);
    }
    const drop = Math.min(minOffset, log.base + log.events.length) - log.base;
    if (drop > 256) {
      log.events.splice(0, drop);
      log.base += drop;
    }
  }
}
