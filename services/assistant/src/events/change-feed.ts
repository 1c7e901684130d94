import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import {
  createEvent,
  Topics,
  type AssistantChanged,
  type EventBus,
  type Logger,
  type Subscription,
} from '@switchyard/shared';
import { SOURCE } from './source';

/** Own changes remembered until they come back (a bound in case some never do). */
const MAX_OWN = 1000;

export type AssistantChangeListener = (
  organization: string,
  change: AssistantChanged['change'],
) => void;

/**
 * What this replica's caches follow: `assistant.changed` from any assistant replica (an
 * organization's agent profiles or knowledge written there). Every replica reads every change,
 * so each has a consumer group of its own.
 */
export class AssistantChangeFeed {
  private readonly listeners: AssistantChangeListener[] = [];
  /** Ids of the changes published here: this replica dropped its own caches already. */
  private readonly own = new Set<string>();
  private subscription?: Subscription;

  constructor(
    private readonly bus: EventBus,
    private readonly logger: Logger,
  ) {}

  onChange(listener: AssistantChangeListener): void {
    this.listeners.push(listener);
  }

  async start(): Promise<void> {
    this.subscription = await this.bus.subscribe({
      group: `assistant-changes-${hostname()}-${randomUUID()}`,
      topics: [Topics.changes],
      handler: async (event) => {
        if (event.type !== 'assistant.changed' || !event.organization) return;
        if (this.own.delete(event.id)) return;
        for (const listener of this.listeners) listener(event.organization, event.data.change);
      },
    });
  }

  /** Tells every replica; a failed publish is logged (their caches expire on their own). */
  async changed(organization: string, change: AssistantChanged['change']): Promise<void> {
    const event = createEvent('assistant.changed', {
      source: SOURCE,
      organization,
      data: { change },
    });
    this.own.add(event.id);
    if (this.own.size > MAX_OWN) this.own.delete(this.own.values().next().value as string);
    try {
      await this.bus.publish(event);
    } catch (error) {
      this.own.delete(event.id);
      this.logger.warn(
        { organization, change, error: error instanceof Error ? error.message : String(error) },
        'assistant.changed not published',
      );
    }
  }

  async stop(): Promise<void> {
    await this.subscription?.close();
  }
}
