import { expect } from 'chai';
import {
  callUnary,
  checkHealth,
  createClient,
  InMemoryEventBus,
  protos,
  SERVICE_NAMES,
  type AnyEvent,
  type RunningService,
} from '@switchyard/shared';
import { silentLogger } from '@switchyard/shared/testing';
import type {
  DeleteItemResponse__Output,
  Item__Output,
  ModelInfo__Output,
  RecommendationServiceClient,
  RecommendRequest,
  RecommendResponse__Output,
  RecordInteractionsResponse__Output,
  UpsertItemsResponse__Output,
} from '@switchyard/shared/proto/recommendation/v1';
import { loadRecommendationConfig, startRecommendationService } from '../src/server';
import { collectDataEvents, context, expectAppError, interaction, item } from './fixtures';

describe('gRPC contract: RecommendationService', () => {
  let service: RunningService;
  let client: RecommendationServiceClient;
  let bus: InMemoryEventBus;
  let data: { events: AnyEvent[]; waitForCount: (n: number) => Promise<void> };
  const orgA = context('org_a');
  const orgB = context('org_b');

  // Each RPC through the generated client and callUnary, as the gateway calls it.
  const call = {
    upsert: (items: ReturnType<typeof item>[], ctx = orgA) =>
      callUnary<{ items: typeof items }, UpsertItemsResponse__Output>(
        SERVICE_NAMES.RecommendationService,
        client.UpsertItems,
        client,
        { items },
        ctx,
        5000,
      ),
    record: (interactions: ReturnType<typeof interaction>[], ctx = orgA) =>
      callUnary<{ interactions: typeof interactions }, RecordInteractionsResponse__Output>(
        SERVICE_NAMES.RecommendationService,
        client.RecordInteractions,
        client,
        { interactions },
        ctx,
        5000,
      ),
    recommend: (request: RecommendRequest, ctx = orgA) =>
      callUnary<RecommendRequest, RecommendResponse__Output>(
        SERVICE_NAMES.RecommendationService,
        client.Recommend,
        client,
        request,
        ctx,
        5000,
      ),
    rebuild: (ctx = orgA) =>
      callUnary<object, ModelInfo__Output>(
        SERVICE_NAMES.RecommendationService,
        client.RebuildModel,
        client,
        {},
        ctx,
        30_000,
      ),
    get: (itemId: string, ctx = orgA) =>
      callUnary<{ item_id: string }, Item__Output>(
        SERVICE_NAMES.RecommendationService,
        client.GetItem,
        client,
        { item_id: itemId },
        ctx,
        5000,
      ),
    remove: (itemId: string, ctx = orgA) =>
      callUnary<{ item_id: string }, DeleteItemResponse__Output>(
        SERVICE_NAMES.RecommendationService,
        client.DeleteItem,
        client,
        { item_id: itemId },
        ctx,
        5000,
      ),
  };

  before(async () => {
    bus = new InMemoryEventBus();
    data = await collectDataEvents(bus);
    service = await startRecommendationService({
      config: {
        ...loadRecommendationConfig({}),
        grpcHost: '127.0.0.1',
        grpcPort: 0,
        maxBatchSize: 10,
        logLevel: 'silent',
      },
      bus,
      logger: silentLogger(),
    });
    client = createClient(
      protos.recommendation().RecommendationService,
      `127.0.0.1:${service.port}`,
    );
  });

  after(async () => {
    client?.close();
    await service?.stop();
    await bus?.close();
  });

  it('reports SERVING on grpc.health.v1', async () => {
    expect(service.port).to.be.greaterThan(0);
    expect(
      await checkHealth(`127.0.0.1:${service.port}`, SERVICE_NAMES.RecommendationService),
    ).to.equal('SERVING');
  });

  it('ingests items and interactions, publishes data.updated, and recommends', async () => {
    const upserted = await call.upsert([
      item('tent', { title: 'Two-person tent', attributes_json: '{"price":199}' }),
      item('stove', { title: 'Camping stove' }),
      item('socks', { title: 'Wool socks' }),
    ]);
    expect(upserted).to.deep.equal({ upserted: 3, duplicates: 0 });
    const recorded = await call.record([
      interaction('c1', 'tent', 'purchase'),
      interaction('c1', 'stove', 'purchase'),
      interaction('w1', 'socks', 'purchase'),
      interaction('w2', 'socks', 'purchase'),
      interaction('alice', 'tent', 'purchase'),
    ]);
    expect(recorded).to.deep.equal({ recorded: 5, duplicates: 0, unknown_items: 0 });
    await data.waitForCount(2);
    expect(data.events.map((e) => [e.organization, e.source, e.data])).to.deep.equal([
      ['org_a', 'recommendation', { dataset: 'catalog_items', count: 3 }],
      ['org_a', 'recommendation', { dataset: 'interactions', count: 5 }],
    ]);

    const model = await call.rebuild();
    expect(model).to.deep.include({
      algorithm: 'item_knn',
      version: 1,
      items: 3,
      users: 4,
      interactions: 5,
    });

    const response = await call.recommend({ user_id: 'alice', num_recommendations: 5 });
    expect(response.user_id).to.equal('alice');
    expect(response.request_id).to.equal(orgA.requestId);
    expect(response.recommendations.map((r) => [r.item_id, r.reason])).to.deep.equal([
      ['stove', 'co_occurrence'],
      ['socks', 'popular'],
    ]);
    expect(response.recommendations[0].score).to.be.within(0, 1);
    expect(response.recommendations[0].item).to.deep.include({
      item_id: 'stove',
      title: 'Camping stove',
      available: true,
    });

    const related = await call.recommend({ user_id: 'visitor', current_item_id: 'tent' });
    expect(related.recommendations.map((r) => r.item_id)).to.deep.equal(['stove', 'socks']);
    expect(related.recommendations[0].reason).to.equal('related_to_current_item');
  });

  it('gets and deletes items', async () => {
    expect(await call.get('tent')).to.deep.include({
      item_id: 'tent',
      title: 'Two-person tent',
      attributes_json: '{"price":199}',
    });
    expect(await call.remove('socks')).to.deep.equal({ deleted: true });
    await expectAppError(call.get('socks'), 'not_found');
  });

  it('carries error codes and fields through gRPC', async () => {
    await expectAppError(
      call.recommend({ user_id: 'alice', num_recommendations: 101 }),
      'invalid_request',
      '/numRecommendations',
    );
    await expectAppError(call.recommend({ user_id: '' }), 'invalid_request', '/userId');
    await expectAppError(
      call.upsert([item('a'), item('b', { catalog: 'music' })]),
      'invalid_request',
      '/items/1/catalog',
    );
    await expectAppError(
      call.upsert(Array.from({ length: 11 }, (_, i) => item(`x${i}`))),
      'invalid_request',
      '/items',
    );
    await expectAppError(
      call.record([interaction('u', 'a', 'rating', { value: 9 })]),
      'invalid_request',
      '/interactions/0/value',
    );
    await expectAppError(call.remove('never-existed'), 'not_found');
  });

  it('keeps organizations isolated', async () => {
    await expectAppError(call.get('tent', orgB), 'not_found');
    await expectAppError(call.remove('tent', orgB), 'not_found');
    expect((await call.recommend({ user_id: 'alice' }, orgB)).recommendations).to.deep.equal([]);
    await call.upsert([item('tent', { title: 'Org B tent' })], orgB);
    expect((await call.get('tent', orgB)).title).to.equal('Org B tent');
    expect((await call.get('tent', orgA)).title).to.equal('Two-person tent');
    await data.waitForCount(3);
    expect(data.events[2].organization).to.equal('org_b');
  });
});
