import { expect } from 'chai';
import type { AnyEvent, EventBus } from '@switchyard/shared';
import {
  buildHandlers,
  collectDataEvents,
  context,
  expectAppError,
  interaction,
  item,
  recommendRequest,
} from './fixtures';

describe('UpsertItems / GetItem / DeleteItem', () => {
  const ctx = context('org_a');

  it('stores items idempotently by item id and publishes data.updated', async () => {
    const { handlers, bus } = buildHandlers();
    const data = await collectDataEvents(bus);
    const tent = item('tent', {
      title: 'Tent',
      categories: ['camping'],
      attributes_json: '{ "price": 199 }',
      updated_at: '2026-01-02T03:04:05Z',
    });
    expect(await handlers.upsertItems({ items: [tent, item('mug')] }, ctx)).to.deep.equal({
      upserted: 2,
      duplicates: 0,
    });
    // The same item twice in one batch: one written, one merged (the later one is stored).
    expect(await handlers.upsertItems({ items: [item('tent'), tent] }, ctx)).to.deep.equal({
      upserted: 1,
      duplicates: 1,
    });
    expect(await handlers.getItem({ item_id: 'tent' }, ctx)).to.deep.equal({
      item_id: 'tent',
      catalog: 'ecommerce',
      title: 'Tent',
      categories: ['camping'],
      attributes_json: '{"price":199}',
      available: true,
      updated_at: '2026-01-02T03:04:05.000Z',
    });
    await data.waitForCount(2);
    expect(
      data.events.map((e) => ({ type: e.type, organization: e.organization, data: e.data })),
    ).to.deep.equal([
      { type: 'data.updated', organization: 'org_a', data: { dataset: 'catalog_items', count: 2 } },
      { type: 'data.updated', organization: 'org_a', data: { dataset: 'catalog_items', count: 1 } },
    ]);
  });

  it('rejects invalid items with a field per problem and stores nothing', async () => {
    const { handlers } = buildHandlers();
    const items = [item('a'), item('b'), item('c'), item('d', { catalog: 'music' })];
    await expectAppError(
      handlers.upsertItems({ items }, ctx),
      'invalid_request',
      '/items/3/catalog',
    );
    await expectAppError(
      handlers.upsertItems({ items: [item('x', { attributes_json: '[1,2]' })] }, ctx),
      'invalid_request',
      '/items/0/attributesJson',
    );
    await expectAppError(
      handlers.upsertItems({ items: [item('x', { attributes_json: '{oops' })] }, ctx),
      'invalid_request',
      '/items/0/attributesJson',
    );
    await expectAppError(
      handlers.upsertItems({ items: [item('')] }, ctx),
      'invalid_request',
      '/items/0/itemId',
    );
    await expectAppError(
      handlers.upsertItems({ items: [item('x', { updated_at: 'yesterday' })] }, ctx),
      'invalid_request',
      '/items/0/updatedAt',
    );
    const many = await expectAppError(
      handlers.upsertItems({ items: [item(''), item('y', { title: ' ' })] }, ctx),
      'invalid_request',
    );
    expect(many.details.map((d) => d.field)).to.deep.equal(['/items/0/itemId', '/items/1/title']);
    await expectAppError(handlers.getItem({ item_id: 'a' }, ctx), 'not_found');
  });

  it('enforces the batch limit', async () => {
    const { handlers } = buildHandlers({ maxBatchSize: 3 });
    const four = ['a', 'b', 'c', 'd'].map((id) => item(id));
    await expectAppError(handlers.upsertItems({ items: four }, ctx), 'invalid_request', '/items');
    await expectAppError(handlers.upsertItems({ items: [] }, ctx), 'invalid_request', '/items');
    const fourInteractions = ['a', 'b', 'c', 'd'].map((id) => interaction('u', id, 'view'));
    await expectAppError(
      handlers.recordInteractions({ interactions: fourInteractions }, ctx),
      'invalid_request',
      '/interactions',
    );
  });

  it('deletes items (not_found afterwards and for another organization)', async () => {
    const { handlers } = buildHandlers();
    await handlers.upsertItems({ items: [item('mug')] }, ctx);
    await expectAppError(handlers.deleteItem({ item_id: 'mug' }, context('org_b')), 'not_found');
    expect(await handlers.deleteItem({ item_id: 'mug' }, ctx)).to.deep.equal({ deleted: true });
    await expectAppError(handlers.getItem({ item_id: 'mug' }, ctx), 'not_found');
    await expectAppError(handlers.deleteItem({ item_id: 'mug' }, ctx), 'not_found');
    await expectAppError(handlers.getItem({ item_id: '' }, ctx), 'invalid_request', '/itemId');
  });

  it('refuses a call without an organization', async () => {
    const { handlers } = buildHandlers();
    await expectAppError(handlers.upsertItems({ items: [item('a')] }, context('')), 'unauthorized');
  });
});

describe('RecordInteractions', () => {
  const ctx = context('org_a');

  it('accepts interactions on unknown items (the catalog may come later) and publishes data.updated', async () => {
    const { handlers, bus } = buildHandlers();
    const data = await collectDataEvents(bus);
    const recorded = await handlers.recordInteractions(
      {
        interactions: [
          interaction('u1', 'later', 'purchase'),
          interaction('u1', 'other', 'purchase'),
          interaction('u2', 'later', 'view'),
        ],
      },
      ctx,
    );
    expect(recorded).to.deep.equal({ recorded: 3, duplicates: 0, unknown_items: 3 });
    await data.waitForCount(1);
    expect(data.events[0].data).to.deep.equal({ dataset: 'interactions', count: 3 });
    // Once the items arrive, the interactions count: u2 gets "other" through u1.
    await handlers.upsertItems({ items: [item('later'), item('other')] }, ctx);
    await handlers.rebuildModel({}, ctx);
    const response = await handlers.recommend(recommendRequest('u2'), ctx);
    expect(response.recommendations?.[0]).to.include({ item_id: 'other', reason: 'co_occurrence' });
  });

  it('validates type, rating value and timestamp with the field of each problem', async () => {
    const { handlers } = buildHandlers();
    const bad = [
      interaction('u1', 'a', 'like'),
      interaction('u1', 'a', 'rating', { value: 6 }),
      interaction('u1', 'a', 'rating', { value: 0 }),
      interaction('u1', 'a', 'view', { timestamp: '12/01/2026' }),
      interaction('', 'a', 'view'),
    ];
    const error = await expectAppError(
      handlers.recordInteractions({ interactions: bad }, ctx),
      'invalid_request',
    );
    expect(error.details.map((d) => d.field)).to.deep.equal([
      '/interactions/0/type',
      '/interactions/1/value',
      '/interactions/2/value',
      '/interactions/3/timestamp',
      '/interactions/4/userId',
    ]);
  });

  it('does not count a retried interaction twice when the caller supplied its timestamp', async () => {
    const { handlers, deps } = buildHandlers();
    const batch = [
      interaction('u1', 'a', 'purchase', { timestamp: '2026-03-01T10:00:00Z' }),
      interaction('u1', 'b', 'view'),
    ];
    expect(await handlers.recordInteractions({ interactions: batch }, ctx)).to.deep.equal({
      recorded: 2,
      duplicates: 0,
      unknown_items: 2,
    });
    expect(await handlers.recordInteractions({ interactions: batch }, ctx)).to.deep.equal({
      recorded: 1,
      duplicates: 1,
      unknown_items: 1,
    });
    expect(await deps.interactions.count('org_a')).to.equal(3);
    const model = (await deps.models.rebuild('org_a'))!;
    // One purchase (weight 1), not two.
    expect(model.popularity(model.index('a')!)).to.equal(1);
  });

  it('answers unavailable when the event cannot be published', async () => {
    const failing: EventBus = {
      publish: async (_event: AnyEvent) => {
        throw new Error('broker down');
      },
      subscribe: async () => ({ close: async () => undefined }),
      subscribeBatch: async () => ({ close: async () => undefined }),
      deadLetter: async () => undefined,
      close: async () => undefined,
    };
    const { handlers } = buildHandlers({ bus: failing });
    await expectAppError(
      handlers.recordInteractions({ interactions: [interaction('u1', 'a', 'view')] }, ctx),
      'unavailable',
    );
    await expectAppError(handlers.upsertItems({ items: [item('a')] }, ctx), 'unavailable');
  });
});
