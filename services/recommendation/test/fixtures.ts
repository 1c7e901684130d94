import { expect } from 'chai';
import {
  AppError,
  InMemoryEventBus,
  Topics,
  type AnyEvent,
  type CallContext,
  type CallControl,
  type RecommendationServiceServer,
  type EventBus,
} from '@switchyard/shared';
import { silentLogger, waitFor } from '@switchyard/shared/testing';
import type {
  Interaction__Output,
  Item__Output,
  RecommendRequest__Output,
} from '@switchyard/shared/proto/recommendation/v1';
import { loadRecommendationConfig } from '../src/config';
import { DataUpdatedPublisher, UsagePublisher } from '@switchyard/shared';
import { ReplicaEvents } from '../src/events/interaction-events';
import { recommendationHandlers, type HandlerDeps } from '../src/handlers';
import { decodeModel } from '../src/model/item-model';
import { ModelRegistry } from '../src/model/model-registry';
import { RebuildScheduler } from '../src/model/rebuild-scheduler';
import { UserProfiles } from '../src/model/user-profiles';
import { InMemoryInteractionStore } from '../src/store/interactions/memory';
import { InMemoryItemStore } from '../src/store/items/memory';
import { InMemoryModelSnapshotStore } from '../src/store/snapshots/memory';
import type { ModelSnapshot, ModelSnapshotStore } from '../src/store/snapshots/port';

export function context(organization = 'org_a'): CallContext {
  return { organization, keyId: 'key_test', requestId: `req_${organization}_1` };
}

/** The service's defaults, except that models are only trained when a test asks (RebuildModel). */
export const TEST_CONFIG = loadRecommendationConfig({ RECOMMENDATION_REBUILD_DELAY_MS: '3600000' });

/** Handlers of one replica on in-memory stores; the scheduler is not started. */
export function buildHandlers(
  options: {
    bus?: EventBus;
    maxBatchSize?: number;
    snapshots?: ModelSnapshotStore;
    popularityFirstFrom?: number;
  } = {},
) {
  const bus = options.bus ?? new InMemoryEventBus();
  const logger = silentLogger();
  const interactions = new InMemoryInteractionStore();
  const replicaEvents = new ReplicaEvents(bus, logger);
  const models = new ModelRegistry({
    interactions,
    snapshots: options.snapshots ?? new InMemoryModelSnapshotStore(),
    logger,
    training: TEST_CONFIG.training,
    halfLifeDays: TEST_CONFIG.decayHalfLifeDays,
    popularityFirstFrom: options.popularityFirstFrom,
  });
  const scheduler = new RebuildScheduler(
    models,
    interactions,
    TEST_CONFIG.rebuild,
    logger,
    'test-replica',
  );
  const deps: HandlerDeps = {
    items: new InMemoryItemStore(),
    interactions,
    models,
    profiles: new UserProfiles(interactions, TEST_CONFIG.decayHalfLifeDays),
    scheduler,
    publisher: new DataUpdatedPublisher(bus, logger, 'recommendation'),
    replicaEvents,
    usage: new UsagePublisher(bus, 'recommendation', logger),
    maxBatchSize: options.maxBatchSize ?? 1000,
    logger,
  };
  return { handlers: callable(recommendationHandlers(deps)), deps, bus };
}

type Callable<S> = {
  [K in keyof S]: S[K] extends (
    request: infer R,
    context: CallContext,
    control: CallControl,
  ) => infer O
    ? (request: R, context: CallContext) => O
    : never;
};

/** The handlers as tests call them, (request, context), under a control that never aborts. */
export function callable(
  handlers: RecommendationServiceServer,
): Callable<RecommendationServiceServer> {
  const control: CallControl = { signal: new AbortController().signal };
  const calls: Record<string, unknown> = {};
  for (const [name, handler] of Object.entries(handlers) as Array<
    [string, (...args: unknown[]) => unknown]
  >)
    calls[name] = (request: unknown, context: CallContext) => handler(request, context, control);
  return calls as Callable<RecommendationServiceServer>;
}

export function item(itemId: string, overrides: Partial<Item__Output> = {}): Item__Output {
  return {
    item_id: itemId,
    catalog: 'ecommerce',
    title: `Item ${itemId}`,
    categories: [],
    attributes_json: '',
    available: true,
    updated_at: '',
    ...overrides,
  };
}

export function interaction(
  userId: string,
  itemId: string,
  type: string,
  overrides: Partial<Interaction__Output> = {},
): Interaction__Output {
  return { user_id: userId, item_id: itemId, type, value: 0, timestamp: '', ...overrides };
}

export function recommendRequest(
  userId: string,
  overrides: Partial<RecommendRequest__Output> = {},
): RecommendRequest__Output {
  return {
    user_id: userId,
    current_item_id: '',
    num_recommendations: 0,
    catalog: '',
    categories: [],
    max_per_category: 0,
    ...overrides,
  };
}

/** Awaits a rejection with an AppError of the given code (and first detail field, when given). */
export async function expectAppError(
  promise: Promise<unknown>,
  code: string,
  field?: string,
): Promise<AppError> {
  let caught: unknown;
  try {
    await promise;
  } catch (error) {
    caught = error;
  }
  expect(caught, 'expected the call to fail').to.be.instanceOf(AppError);
  const error = caught as AppError;
  expect(error.code).to.equal(code);
  if (field !== undefined) expect(error.details.map((d) => d.field)).to.include(field);
  return error;
}

/** Collects events of the data topic published on bus. */
export async function collectDataEvents(
  bus: EventBus,
): Promise<{ events: AnyEvent[]; waitForCount: (n: number) => Promise<void> }> {
  const events: AnyEvent[] = [];
  await bus.subscribe({
    group: `test-${Math.random()}`,
    topics: [Topics.data],
    handler: async (event) => void events.push(event),
  });
  return { events, waitForCount: async (n) => void (await waitFor(() => events.length >= n)) };
}

/**
 * Hand-built data set whose right answers are known:
 * A is bought with B twice, with C, U (unavailable) and T1 (ticketing) once; D is the most popular.
 */
export const SHOP_ITEMS: Item__Output[] = [
  item('A'),
  item('B'),
  item('C'),
  item('D'),
  item('E'),
  item('U', { available: false }),
  item('T1', { catalog: 'ticketing' }),
  item('T2', { catalog: 'ticketing' }),
];

export const SHOP_INTERACTIONS: Interaction__Output[] = [
  interaction('u1', 'A', 'purchase'),
  interaction('u1', 'B', 'purchase'),
  interaction('u1', 'U', 'purchase'),
  interaction('u2', 'A', 'purchase'),
  interaction('u2', 'B', 'purchase'),
  interaction('u2', 'T1', 'ticket'),
  interaction('u3', 'A', 'purchase'),
  interaction('u3', 'C', 'purchase'),
  interaction('u4', 'D', 'purchase'),
  interaction('u5', 'D', 'purchase'),
  interaction('u6', 'D', 'purchase'),
  interaction('u6', 'E', 'view'),
  interaction('u7', 'C', 'purchase'),
  interaction('u7', 'D', 'purchase'),
  interaction('u8', 'D', 'purchase'),
  interaction('u9', 'T2', 'ticket'),
  interaction('alice', 'A', 'purchase'),
];

/** Snapshots in memory, remembering what was published ("version:algorithm"). */
export class RecordingSnapshotStore extends InMemoryModelSnapshotStore {
  readonly published: string[] = [];

  override async publish(organization: string, snapshot: ModelSnapshot): Promise<boolean> {
    let algorithm: string;
    try {
      algorithm = decodeModel(snapshot.blob).algorithm;
    } catch {
      algorithm = 'unreadable';
    }
    this.published.push(`${snapshot.version}:${algorithm}`);
    return super.publish(organization, snapshot);
  }
}
