import type { Logger } from '@switchyard/shared';
import type { DataUpdatedPublisher, UsagePublisher } from '@switchyard/shared';
import type { ReplicaEvents } from '../events/interaction-events';
import type { ModelRegistry } from '../model/model-registry';
import type { RebuildScheduler } from '../model/rebuild-scheduler';
import type { UserProfiles } from '../model/user-profiles';
import type { InteractionStore } from '../store/interactions/port';
import type { ItemStore } from '../store/items/port';

/** What the transport-free handlers need; built once by server.ts (or a benchmark). */
export interface HandlerDeps {
  items: ItemStore;
  interactions: InteractionStore;
  models: ModelRegistry;
  profiles: UserProfiles;
  scheduler: RebuildScheduler;
  publisher: DataUpdatedPublisher<'catalog_items' | 'interactions'>;
  replicaEvents: ReplicaEvents;
  /** Each recommendation served is counted in the organization's usage (a call, no tokens). */
  usage: UsagePublisher;
  maxBatchSize: number;
  logger: Logger;
  /** Injectable clock for tests. */
  now?: () => Date;
}
