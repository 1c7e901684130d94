import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import {
  createEvent,
  Topics,
  type AnyEvent,
  type EventBus,
  type Logger,
  type OrganizationChanged,
  type Subscription,
} from '@switchyard/shared';

export type ChangeListener = (event: AnyEvent) => void;

/**
 * The changes this replica's caches follow instead of asking again: webhooks.changed from
 * notification, organization.changed from any gateway replica (policy or keys changed through the
 * admin API). Every replica reads every change, so each has a consumer group of its own.
 */
export class ChangeFeed {
  private readonly listeners: ChangeListener[] = [];
  private subscription?: Subscription;

  constructor(
    private readonly bus: EventBus,
    private readonly logger: Logger,
  ) {}

  onChange(listener: ChangeListener): void {
    this.listeners.push(listener);
  }

  async start(): Promise<void> {
    this.subscription = await this.bus.subscribe({
      group: `gateway-changes-${hostname()}-${randomUUID()}`,
      topics: [Topics.changes],
      handler: async (event) => {
        for (const listener of this.listeners) listener(event);
      },
    });
  }

  /** Tells every replica; a failed publish is logged (their caches expire on their own). */
  async organizationChanged(
    organization: string,
    change: OrganizationChanged['change'],
  ): Promise<void> {
    try {
      await this.bus.publish(
        createEvent('organization.changed', { source: 'gateway', organization, data: { change } }),
      );
    } catch (error) {
      this.logger.warn(
        { organization, change, error: error instanceof Error ? error.message : String(error) },
        'organization.changed not published',
      );
    }
  }

  async stop(): Promise<void> {
    await this.subscription?.close();
  }
}
