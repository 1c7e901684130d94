import {
  createEvent,
  ReplicaChangeFeed,
  type AnyEvent,
  type EventBus,
  type Logger,
  type OrganizationChanged,
} from '@switchyard/shared';
import type { Change, ReadModel } from '../read-models/read-model';

function changeOf(event: AnyEvent): Change | undefined {
  if (event.type === 'webhooks.changed') return 'webhooks';
  if (event.type === 'organization.changed') return event.data.change;
  return undefined;
}

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

  /** Tells the read models every change of an organization, made on any replica. */
  follow(...models: ReadModel[]): void {
    this.feed.onEvent((event) => {
      const change = changeOf(event);
      if (change) for (const model of models) model.changed(event.organization, change);
    });
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
