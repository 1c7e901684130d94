import { expect } from 'chai';
import type { RecommendResponse } from '@switchyard/shared/proto/recommendation/v1';
import {
  buildHandlers,
  context,
  expectAppError,
  interaction,
  item,
  recommendRequest,
} from './fixtures';

const ids = (response: RecommendResponse) => (response.recommendations ?? []).map((r) => r.item_id);
const NOW = new Date('2026-06-01T12:00:00Z');
const ctx = context('org_box_office');

/** A box office: concerts (some over), merchandise with prices, one sold-out show. */
const ITEMS = [
  item('rock-fest', {
    catalog: 'ticketing',
    title: 'Rock festival',
    categories: ['rock'],
    attributes_json: '{"startsAt":"2026-07-01T18:00:00Z","price":80}',
  }),
  item('rock-club', {
    catalog: 'ticketing',
    title: 'Rock club night',
    categories: ['rock'],
    attributes_json: '{"startsAt":"2026-06-10T20:00:00Z","price":25}',
  }),
  item('rock-past', {
    catalog: 'ticketing',
    title: 'Rock legends (last year)',
    categories: ['rock'],
    attributes_json: '{"date":"2025-12-01T20:00:00Z","price":60}',
  }),
  item('jazz-trio', {
    catalog: 'ticketing',
    title: 'Jazz trio',
    categories: ['jazz'],
    attributes_json: '{"startsAt":"2026-06-20T20:00:00Z","price":30}',
  }),
  item('jazz-week', {
    catalog: 'ticketing',
    title: 'Jazz week ends tonight',
    categories: ['jazz'],
    attributes_json:
      '{"startsAt":"2026-05-25T20:00:00Z","endsAt":"2026-06-01T23:00:00Z","price":45}',
  }),
  item('jazz-ended', {
    catalog: 'ticketing',
    title: 'Jazz week ended',
    categories: ['jazz'],
    attributes_json:
      '{"startsAt":"2026-05-20T20:00:00Z","endsAt":"2026-05-31T23:00:00Z","price":45}',
  }),
  item('sold-out', {
    catalog: 'ticketing',
    title: 'Rock sold out',
    categories: ['rock'],
    available: false,
  }),
  item('shirt', {
    catalog: 'ecommerce',
    title: 'Rock shirt',
    categories: ['rock', 'merch'],
    attributes_json: '{"price":20}',
  }),
];

describe('Recommend: catalog rules and request filters', () => {
  let handlers: ReturnType<typeof buildHandlers>['handlers'];

  beforeEach(async () => {
    const built = buildHandlers();
    built.deps.now = () => NOW;
    handlers = built.handlers;
    await handlers.upsertItems({ items: ITEMS }, ctx);
    // Fans went to everything, including what is over or sold out now.
    const fans = ['f1', 'f2', 'f3', 'f4'];
    const interactions = fans.flatMap((fan) =>
      ITEMS.map((i) => interaction(fan, i.item_id, 'ticket')),
    );
    interactions.push(
      interaction('alice', 'rock-club', 'ticket'),
      interaction('bob', 'jazz-trio', 'view'),
    );
    await handlers.recordInteractions({ interactions }, ctx);
    await handlers.rebuildModel({}, ctx);
  });

  it('never returns past events, unavailable items or what the user owns', async () => {
    for (const userId of ['alice', 'bob', 'newcomer', 'f1']) {
      for (const current of ['', 'rock-fest', 'rock-past']) {
        const got = ids(
          await handlers.recommend(
            recommendRequest(userId, { current_item_id: current, num_recommendations: 100 }),
            ctx,
          ),
        );
        for (const never of ['rock-past', 'jazz-ended', 'sold-out'])
          expect(got, `${userId} ${current}`).to.not.include(never);
        if (userId === 'alice') expect(got).to.not.include('rock-club');
        if (userId === 'f1') expect(got, 'f1 has a ticket for everything').to.deep.equal([]);
      }
    }
    expect(
      ids(await handlers.recommend(recommendRequest('bob', { num_recommendations: 100 }), ctx)),
    ).to.include('jazz-trio');
  });

  it('keeps an event until it is over: endsAt when given, else the start', async () => {
    const got = ids(
      await handlers.recommend(recommendRequest('newcomer', { num_recommendations: 100 }), ctx),
    );
    expect(got).to.have.members(['rock-fest', 'rock-club', 'jazz-trio', 'jazz-week', 'shirt']);
  });

  it('filters by categories and by price range (items without a price are left out)', async () => {
    const rock = ids(
      await handlers.recommend(
        recommendRequest('newcomer', { categories: ['rock'], num_recommendations: 100 }),
        ctx,
      ),
    );
    expect(rock).to.have.members(['rock-fest', 'rock-club', 'shirt']);
    const cheap = ids(
      await handlers.recommend(
        recommendRequest('newcomer', { min_price: 20, max_price: 30, num_recommendations: 100 }),
        ctx,
      ),
    );
    expect(cheap).to.have.members(['rock-club', 'jazz-trio', 'shirt']);
    const ticketsUnder50 = ids(
      await handlers.recommend(
        recommendRequest('newcomer', {
          catalog: 'ticketing',
          max_price: 50,
          num_recommendations: 100,
        }),
        ctx,
      ),
    );
    expect(ticketsUnder50).to.have.members(['rock-club', 'jazz-trio', 'jazz-week']);
  });

  it('limits items per category when asked (diversity)', async () => {
    const all = await handlers.recommend(
      recommendRequest('newcomer', { num_recommendations: 100 }),
      ctx,
    );
    const diverse = await handlers.recommend(
      recommendRequest('newcomer', { max_per_category: 1, num_recommendations: 100 }),
      ctx,
    );
    const categoriesOf = (response: RecommendResponse) =>
      response.recommendations!.flatMap((r) => r.item!.categories!);
    expect(categoriesOf(all).filter((c) => c === 'rock')).to.have.length(3);
    expect(categoriesOf(diverse).filter((c) => c === 'rock')).to.have.length(1);
    expect(ids(diverse)).to.include('jazz-trio');
  });

  it('rejects an inverted price range and a negative diversity limit', async () => {
    await expectAppError(
      handlers.recommend(recommendRequest('u', { min_price: 50, max_price: 10 }), ctx),
      'invalid_request',
      '/maxPrice',
    );
    await expectAppError(
      handlers.recommend(recommendRequest('u', { max_per_category: -1 }), ctx),
      'invalid_request',
      '/maxPerCategory',
    );
  });

  it('says why each item is there', async () => {
    const response = await handlers.recommend(
      recommendRequest('bob', { current_item_id: 'rock-fest', num_recommendations: 100 }),
      ctx,
    );
    const reasons = new Set(response.recommendations!.map((r) => r.reason));
    expect(response.recommendations![0].reason).to.equal('related_to_current_item');
    for (const reason of reasons)
      expect(['related_to_current_item', 'co_occurrence', 'popular']).to.include(reason);
  });

  it('starts a new item from its metadata: items sharing its categories and title words', async () => {
    await handlers.upsertItems(
      {
        items: [
          item('rock-new', {
            catalog: 'ticketing',
            title: 'Rock festival encore',
            categories: ['rock'],
            attributes_json: '{"startsAt":"2026-09-01T18:00:00Z"}',
          }),
        ],
      },
      ctx,
    );
    const response = await handlers.recommend(
      recommendRequest('newcomer', { current_item_id: 'rock-new', num_recommendations: 3 }),
      ctx,
    );
    expect(ids(response)[0], 'same category and most title words').to.equal('rock-fest');
    expect(response.recommendations!.slice(0, 2).map((r) => r.reason)).to.deep.equal([
      'similar_to_current_item',
      'similar_to_current_item',
    ]);
    for (const never of ['rock-new', 'rock-past', 'sold-out'])
      expect(ids(response)).to.not.include(never);
  });
});
