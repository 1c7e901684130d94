import {
  createEvent,
  ReplicaChangeFeed,
  type AssistantChanged,
  type EventBus,
  type Logger,
} from '@switchyard/shared';
import { SOURCE } from './source';

export type AssistantChangeListener = (
  organization: string,
  change: AssistantChanged['change'],
) => void;

/**
 * What this replica's caches follow: `assistant.changed` from the other assistant replicas (an
 * organization's agent profiles or knowledge written there).
 */
export class AssistantChangeFeed {
  private readonly feed: ReplicaChangeFeed;

  constructor(bus: EventBus, logger: Logger) {
    this.feed = new ReplicaChangeFeed(bus, logger, 'assistant');
  }

  onChange(listener: AssistantChangeListener): void {
    this.feed.onEvent((event) => {
      if (event.type === 'assistant.changed' && event.organization)
        listener(event.organization, event.data.change);
    });
  }

  start(): Promise<void> {
    return this.feed.start();
  }

  /** Tells the other replicas (this one dropped its own caches when it wrote). */
  changed(organization: string, change: AssistantChanged['change']): Promise<void> {
    return this.feed.publish(
      createEvent('assistant.changed', { source: SOURCE, organization, data: { change } }),
    );
  }

  stop(): Promise<void> {
    return this.feed.stop();
  }
}
