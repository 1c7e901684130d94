import type { Logger } from 'pino';
import type { EventBus, EventHandler, SubscribeOptions, Subscription } from '../events/bus';
import { validateEvent, type AnyEvent } from '../events/envelope';
import { TOPIC_OF, type Topic } from '../events/topics';
import { contextFromCarrier, type TraceCarrier } from '../tracing/propagation';
import { describeConsumed, tracePublish, traceConsume } from '../tracing/messaging';

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

/** An event as published, with the publisher's trace context (what Kafka carries in headers). */
interface LoggedEvent {
  event: AnyEvent;
  trace?: TraceCarrier;
}

interface TopicLog {
  /** Offset of events[0]; earlier events were consumed by every group and dropped. */
  base: number;
  events: LoggedEvent[];
}

interface Group {
  name: string;
  topics: Set<Topic>;
  members: EventHandler[];
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
      this.logOf(topic).events.push({ event: structuredClone(valid), trace });
    });
    for (const group of this.groups.values()) {
      if (group.topics.has(topic)) this.drain(group);
    }
  }

  async subscribe(options: SubscribeOptions): Promise<Subscription> {
    let group = this.groups.get(options.group);
    if (!group) {
      group = { name: options.group, topics: new Set(), members: [], offsets: new Map(), nextMember: 0, draining: false };
      this.groups.set(options.group, group);
    }
    for (const topic of options.topics) {
      group.topics.add(topic);
      // A new group starts from the oldest retained event, so nothing published at boot is missed.
      if (!group.offsets.has(topic)) group.offsets.set(topic, this.logOf(topic).base);
    }
    const member = options.handler;
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
      this.drainLoop(group).finally(() => {
        group.draining = false;
        if (this.lag(group.name) > 0 && group.members.length > 0 && !this.closed) this.drain(group);
      });
    });
  }

  private async drainLoop(group: Group): Promise<void> {
    for (;;) {
      const next = this.nextFor(group);
      if (!next || group.members.length === 0 || this.closed) return;
      await this.deliver(group, next.topic, next.logged);
      group.offsets.set(next.topic, next.offset + 1);
      this.compact(next.topic);
    }
  }

  private nextFor(group: Group): { topic: Topic; offset: number; logged: LoggedEvent } | undefined {
    for (const topic of group.topics) {
      const log = this.logOf(topic);
      const offset = group.offsets.get(topic) ?? log.base;
      const logged = log.events[offset - log.base];
      if (logged) return { topic, offset, logged };
    }
    return undefined;
  }

  /** Runs the handler in a consumer span continuing the publisher's trace (not the drain's own context). */
  private deliver(group: Group, topic: Topic, { event, trace }: LoggedEvent): Promise<void> {
    return traceConsume('in_memory', topic, group.name, contextFromCarrier(trace), (span) => {
      describeConsumed(span, event);
      return this.attempts(group, topic, event);
    });
  }

  private async attempts(group: Group, topic: Topic, event: AnyEvent): Promise<void> {
    let lastError = '';
    for (let attempt = 1; attempt <= this.maxAttempts; attempt++) {
      const handler = group.members[group.nextMember++ % Math.max(group.members.length, 1)];
      if (!handler) return;
      try {
        await handler(structuredClone(event));
        return;
      } catch (error) {
        lastError = error instanceof Error ? error.message : String(error);
        this.options.logger?.warn({ group: group.name, eventId: event.id, attempt, error: lastError }, 'event handler failed');
        if (attempt < this.maxAttempts) await sleep(this.retryBaseMs * 2 ** (attempt - 1));
      }
    }
    this.deadLetters.push({ topic, group: group.name, event, error: lastError, attempts: this.maxAttempts, failedAt: new Date().toISOString() });
    this.options.logger?.error({ group: group.name, eventId: event.id, type: event.type, error: lastError }, 'event sent to dead letters');
  }

  /** Drops events every subscribed group has handled. */
  private compact(topic: Topic): void {
    const log = this.logOf(topic);
    let minOffset = Infinity;
    for (const group of this.groups.values()) {
      if (group.topics.has(topic)) minOffset = Math.min(minOffset, group.offsets.get(topic) ?? log.base);
    }
    const drop = Math.min(minOffset, log.base + log.events.length) - log.base;
    if (drop > 256) {
      log.events.splice(0, drop);
      log.base += drop;
    }
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
