import {
  createEvent,
  ReplicaChangeFeed,
  type AnyEvent,
  type EventBus,
  type Logger,
  type OrganizationChanged,
} from '@switchyard/shared';

export type ChangeListener = (event: AnyEvent) => void;

/**
 * The changes this replica's caches follow instead of asking again: webhooks.changed from
 * notification, organization.changed from the other gateway replicas (policy or keys changed
 * through the admin API).
 */
export class ChangeFeed {
  private readonly feed: ReplicaChangeFeed;

  constructor(bus: EventBus, logger: Logger) {
    this.feed = new ReplicaChangeFeed(bus, logger, 'gateway');
  }

  onChange(listener: ChangeListener): void {
    this.feed.onEvent(listener);
  }

  start(): Promise<void> {
    return this.feed.start();
  }

  /** Tells the other replicas (this one forgot what it changed already). */
  organizationChanged(organization: string, change: OrganizationChanged['change']): Promise<void> {
    return this.feed.publish(
      createEvent('organization.changed', { source: 'gateway', organization, data: { change } }),
    );
  }

  stop(): Promise<void> {
    return this.feed.stop();
  }
}
