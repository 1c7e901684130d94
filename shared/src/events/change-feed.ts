import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from '../logging/logger';
import type { EventBus, Subscription } from './bus';
import type { AnyEvent } from './envelope';
import { Topics } from './topics';

/** Own changes remembered until they come back (a bound in case some never do). */
const MAX_OWN = 1000;

/**
 * `switchyard.changes.v1` as a replica's caches follow it: every replica reads every change (a
 * consumer group of its own), and a change this replica published is not handed back to it (it
 * dropped its own caches when it wrote). A publish that fails is logged, never thrown: the other
 * replicas' caches expire on their own.
 */
export class ReplicaChangeFeed {
  private readonly listeners: Array<(event: AnyEvent) => void> = [];
  private readonly own = new Set<string>();
  private subscription?: Subscription;

  constructor(
    private readonly bus: EventBus,
    private readonly logger: Logger,
    /** Names the consumer groups, e.g. `gateway` -> `gateway-changes-<host>-<uuid>`. */
    private readonly service: string,
  ) {}

  onEvent(listener: (event: AnyEvent) => void): void {
    this.listeners.push(listener);
  }

  async start(): Promise<void> {
    this.subscription = await this.bus.subscribe({
      group: `${this.service}-changes-${hostname()}-${randomUUID()}`,
      topics: [Topics.changes],
      handler: async (event) => {
        if (this.own.delete(event.id)) return;
        for (const listener of this.listeners) listener(event);
      },
    });
  }

  async publish(event: AnyEvent): Promise<void> {
    this.own.add(event.id);
    if (this.own.size > MAX_OWN) this.own.delete(this.own.values().next().value as string);
    try {
      await this.bus.publish(event);
    } catch (error) {
      this.own.delete(event.id);
      this.logger.warn(
        {
          type: event.type,
          organization: event.organization,
          error: error instanceof Error ? error.message : String(error),
        },
        `${event.type} not published`,
      );
    }
  }

  async stop(): Promise<void> {
    await this.subscription?.close();
  }
}
