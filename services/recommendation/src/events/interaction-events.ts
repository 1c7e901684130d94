import {
  AppError,
  createEvent,
  Topics,
  type EventBus,
  type Logger,
  type Subscription,
} from '@switchyard/shared';
import type { ModelRegistry } from '../model/model-registry';
import type { UserProfiles } from '../model/user-profiles';
import type { CachedItemStore } from '../store/items/cached';

/** What a replica keeps that other replicas' writes make stale. */
export interface ReplicaState {
  profiles: UserProfiles;
  models: ModelRegistry;
  items: CachedItemStore;
}

/**
 * Replica-to-replica events on the recommendation topic: whose interactions were stored (drop
 * their cached profiles), which catalog items changed (drop them from the item cache) and which
 * model version was published (load it).
 */
export class ReplicaEvents {
  constructor(
    private readonly bus: EventBus,
    private readonly logger: Logger,
  ) {}

  /** Throws AppError(unavailable) when the bus refuses: the caller retries, other replicas must hear of it. */
  async interactionsRecorded(
    organization: string,
    userIds: string[],
    count: number,
  ): Promise<void> {
    await this.publish(
      createEvent('interactions.recorded', {
        source: 'recommendation',
        organization,
        data: { userIds, count },
      }),
    );
  }

  async catalogChanged(organization: string, itemIds: string[]): Promise<void> {
    await this.publish(
      createEvent('catalog.changed', { source: 'recommendation', organization, data: { itemIds } }),
    );
  }

  async modelPublished(organization: string, version: number, algorithm: string): Promise<void> {
    await this.publish(
      createEvent('model.published', {
        source: 'recommendation',
        organization,
        data: { version, algorithm },
      }),
    );
  }

  /**
   * Every replica reads every event: its own consumer group. Handling is idempotent (dropping a
   * cache entry, loading a version not older than the served one), so redelivery is harmless.
   */
  subscribe(replicaId: string, state: ReplicaState): Promise<Subscription> {
    return this.bus.subscribe({
      group: `recommendation-replica-${replicaId}`,
      topics: [Topics.recommendation],
      handler: async (event) => {
        if (event.type === 'interactions.recorded')
          state.profiles.invalidate(event.organization, event.data.userIds);
        else if (event.type === 'catalog.changed')
          state.items.invalidate(event.organization, event.data.itemIds);
        else if (event.type === 'model.published') await state.models.refresh(event.organization);
      },
    });
  }

  private async publish(event: Parameters<EventBus['publish']>[0]): Promise<void> {
    try {
      await this.bus.publish(event);
    } catch (error) {
      this.logger.error(
        { err: error, eventId: event.id, type: event.type },
        'recommendation event could not be published',
      );
      throw new AppError(
        'unavailable',
        'the data was stored but the other replicas could not be told; retry the call',
      );
    }
  }
}
