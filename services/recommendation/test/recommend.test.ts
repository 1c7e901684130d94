import { expect } from 'chai';
import { Topics, type AnyEvent } from '@switchyard/shared';
import { waitFor } from '@switchyard/shared/testing';
import {
  buildHandlers,
  context,
  expectAppError,
  item,
  interaction,
  recommendRequest,
  RecordingSnapshotStore,
  SHOP_INTERACTIONS,
  SHOP_ITEMS,
} from './fixtures';
import type { RecommendResponse } from '@switchyard/shared/proto/recommendation/v1';

type Handlers = ReturnType<typeof buildHandlers>['handlers'];

function ids(response: RecommendResponse): string[] {
  return (response.recommendations ?? []).map((r) => r.item_id ?? '');
}

function reasons(response: RecommendResponse): Record<string, string> {
  return Object.fromEntries((response.recommendations ?? []).map((r) => [r.item_id, r.reason]));
}

describe('Recommend: counted in the usage', () => {
  it('records one usage fact per call, under its route and the model that ranked, once per Idempotency-Key', async () => {
    const { handlers, bus } = buildHandlers();
    const usage: AnyEvent[] = [];
    await bus.subscribe({
      group: 'test-usage',
      topics: [Topics.usage],
      handler: async (event) => void usage.push(event),
    });
    const ctx = context('org_a');
    await handlers.recommend(recommendRequest('alice'), ctx);
    await handlers.upsertItems({ items: SHOP_ITEMS }, ctx);
    await handlers.recordInteractions({ interactions: SHOP_INTERACTIONS }, ctx);
    await handlers.rebuildModel({}, ctx);
    const retried = { ...ctx, requestId: 'req_retry', idempotencyKey: 'once' };
    await handlers.recommend(recommendRequest('alice'), retried);
    await handlers.recommend(recommendRequest('alice'), retried);
    await waitFor(() => usage.length === 3);
    expect(usage.map((e) => e.type)).to.deep.equal(Array(3).fill('usage.recorded'));
    expect(usage[0]!.data).to.deep.include({
      route: 'recommendation.recommend',
      model: 'recommendation:popularity',
      keyId: ctx.keyId,
      requestId: ctx.requestId,
      tokensInput: 0,
      tokensOutput: 0,
      cost: 0,
    });
    expect((usage[1]!.data as { model: string }).model).to.match(
      /^recommendation:(ease|item_knn|sparse_ease)$/,
    );
    // A retry of the same call (its Idempotency-Key) carries the same event id: the ledger counts it once.
    expect(usage[2]!.id).to.equal(usage[1]!.id);
    expect(usage[0]!.id).not.to.equal(usage[1]!.id);
  });
});

describe('Recommend (hand-built shop data)', () => {
  let handlers: Handlers;
  const ctx = context('org_a');

  beforeEach(async () => {
    handlers = buildHandlers().handlers;
    await handlers.upsertItems({ items: SHOP_ITEMS }, ctx);
    await handlers.recordInteractions({ interactions: SHOP_INTERACTIONS }, ctx);
    await handlers.rebuildModel({}, ctx);
  });

  it('recommends what co-occurs with the user items, strongest first, then fills with popular items', async () => {
    const response = await handlers.recommend(recommendRequest('alice'), ctx);
    expect(response.user_id).to.equal('alice');
    expect(response.request_id).to.equal(ctx.requestId);
    // B co-occurs twice with A, T1 once (rarer item), C once; U is unavailable; A is owned.
    expect(ids(response)).to.deep.equal(['B', 'T1', 'C', 'D', 'T2', 'E']);
    expect(reasons(response)).to.deep.equal({
      B: 'co_occurrence',
      T1: 'co_occurrence',
      C: 'co_occurrence',
      D: 'popular',
      T2: 'popular',
      E: 'popular',
    });
    expect(response.recommendations?.[0].item).to.deep.include({
      item_id: 'B',
      title: 'Item B',
      catalog: 'ecommerce',
      available: true,
    });
  });

  it('returns scores within 0..1, sorted descending', async () => {
    const scores = (await handlers.recommend(recommendRequest('alice'), ctx)).recommendations!.map(
      (r) => Number(r.score),
    );
    expect(scores[0]).to.be.at.most(1);
    expect(scores[scores.length - 1]).to.be.at.least(0);
    expect([...scores].sort((a, b) => b - a)).to.deep.equal(scores);
    expect(new Set(scores).size, 'distinct strengths give distinct scores').to.equal(scores.length);
  });

  it('falls back to popularity for an unknown user, ties broken by item id', async () => {
    const response = await handlers.recommend(recommendRequest('newcomer'), ctx);
    // D 25, A 20, B 10 = C 10, T1 5 = T2 5, E 1 (a view); U unavailable.
    expect(ids(response)).to.deep.equal(['D', 'A', 'B', 'C', 'T1', 'T2', 'E']);
    expect(new Set(Object.values(reasons(response)))).to.deep.equal(new Set(['popular']));
    const again = await handlers.recommend(recommendRequest('newcomer'), ctx);
    expect(again).to.deep.equal(response);
  });

  it('ranks items related to the current item first and never returns the current item', async () => {
    const response = await handlers.recommend(
      recommendRequest('alice', { current_item_id: 'C' }),
      ctx,
    );
    // C co-occurs with A (owned by alice) and D; D comes first although it is weak for alice.
    // The popular fill stays in C's catalog (ecommerce), so T2 is left out.
    expect(ids(response)).to.deep.equal(['D', 'B', 'T1', 'E']);
    expect(reasons(response).D).to.equal('related_to_current_item');
    expect(ids(response)).to.not.include('C');
  });

  it('fills with popular items of the current item catalog for an unknown user', async () => {
    const response = await handlers.recommend(
      recommendRequest('newcomer', { current_item_id: 'C' }),
      ctx,
    );
    // C co-occurs with A (1 of 4 holders) more strongly than with D (1 of 5); T2 is another catalog.
    expect(ids(response)).to.deep.equal(['A', 'D', 'B', 'E']);
    expect(reasons(response)).to.deep.equal({
      A: 'related_to_current_item',
      D: 'related_to_current_item',
      B: 'popular',
      E: 'popular',
    });
  });

  it('ignores an unknown current item instead of failing', async () => {
    const withUnknown = await handlers.recommend(
      recommendRequest('newcomer', { current_item_id: 'no-such-item' }),
      ctx,
    );
    const without = await handlers.recommend(recommendRequest('newcomer'), ctx);
    expect(withUnknown).to.deep.equal(without);
  });

  it('excludes owned items but may suggest items only viewed', async () => {
    await handlers.recordInteractions(
      { interactions: [interaction('alice', 'B', 'enroll'), interaction('alice', 'D', 'view')] },
      ctx,
    );
    const got = ids(await handlers.recommend(recommendRequest('alice'), ctx));
    for (const owned of ['A', 'B']) expect(got).to.not.include(owned);
    expect(got).to.include('D');
  });

  it('never recommends unavailable or deleted items', async () => {
    expect(ids(await handlers.recommend(recommendRequest('alice'), ctx))).to.not.include('U');
    await handlers.upsertItems({ items: [item('U', { available: true })] }, ctx);
    // Once available, U ties with T1 (both co-occur once with A and have one holder); ids break the tie.
    expect(ids(await handlers.recommend(recommendRequest('alice'), ctx)).slice(0, 3)).to.deep.equal(
      ['B', 'T1', 'U'],
    );
    await handlers.deleteItem({ item_id: 'B' }, ctx);
    expect(ids(await handlers.recommend(recommendRequest('alice'), ctx))).to.not.include('B');
  });

  it('filters by catalog', async () => {
    expect(
      ids(await handlers.recommend(recommendRequest('alice', { catalog: 'ticketing' }), ctx)),
    ).to.deep.equal(['T1', 'T2']);
    expect(
      ids(await handlers.recommend(recommendRequest('alice', { catalog: 'ecommerce' }), ctx)),
    ).to.deep.equal(['B', 'C', 'D', 'E']);
    expect(
      ids(await handlers.recommend(recommendRequest('alice', { catalog: 'education' }), ctx)),
    ).to.deep.equal([]);
  });

  it('returns numRecommendations items, 10 by default', async () => {
    expect(
      ids(await handlers.recommend(recommendRequest('alice', { num_recommendations: 2 }), ctx)),
    ).to.deep.equal(['B', 'T1']);
    const many = Array.from({ length: 15 }, (_, i) => item(`P${String(i).padStart(2, '0')}`));
    await handlers.upsertItems({ items: many }, ctx);
    await handlers.recordInteractions(
      { interactions: many.map((m) => interaction('crowd', m.item_id, 'view')) },
      ctx,
    );
    await handlers.rebuildModel({}, ctx);
    expect(ids(await handlers.recommend(recommendRequest('newcomer'), ctx))).to.have.length(10);
    expect(
      ids(
        await handlers.recommend(recommendRequest('newcomer', { num_recommendations: 100 }), ctx),
      ),
    ).to.have.length(22);
  });

  it('rejects numRecommendations outside 1..100, a missing userId and an unknown catalog', async () => {
    await expectAppError(
      handlers.recommend(recommendRequest('alice', { num_recommendations: 101 }), ctx),
      'invalid_request',
      '/numRecommendations',
    );
    await expectAppError(
      handlers.recommend(recommendRequest('alice', { num_recommendations: -1 }), ctx),
      'invalid_request',
      '/numRecommendations',
    );
    await expectAppError(
      handlers.recommend(recommendRequest(''), ctx),
      'invalid_request',
      '/userId',
    );
    await expectAppError(
      handlers.recommend(recommendRequest('alice', { catalog: 'music' }), ctx),
      'invalid_request',
      '/catalog',
    );
    await expectAppError(
      handlers.recommend(recommendRequest('alice', { current_item_id: 'x'.repeat(300) }), ctx),
      'invalid_request',
      '/currentItemId',
    );
  });

  it('keeps organizations apart', async () => {
    const other = context('org_b');
    expect(ids(await handlers.recommend(recommendRequest('alice'), other))).to.deep.equal([]);
    await expectAppError(handlers.getItem({ item_id: 'A' }, other), 'not_found');
  });
});

describe('Recommend before the first model', () => {
  const ctx = context('org_a');

  it('answers catalog items when nothing was recorded, popularity of what was recorded before training', async () => {
    const { handlers, deps } = buildHandlers();
    await handlers.upsertItems({ items: SHOP_ITEMS }, ctx);
    const catalogOnly = await handlers.recommend(
      recommendRequest('anyone', { num_recommendations: 100 }),
      ctx,
    );
    expect(catalogOnly.recommendations!.length).to.be.greaterThan(0);
    for (const r of catalogOnly.recommendations!) {
      expect(r.reason).to.equal('catalog');
      expect(r.item!.available).to.equal(true);
    }
    await handlers.recordInteractions({ interactions: SHOP_INTERACTIONS }, ctx);
    expect(deps.models.current('org_a'), 'no model trained yet').to.equal(undefined);
    const before = await handlers.recommend(recommendRequest('newcomer'), ctx);
    await handlers.rebuildModel({}, ctx);
    const after = await handlers.recommend(recommendRequest('newcomer'), ctx);
    expect(new Set(Object.values(reasons(before)))).to.deep.equal(new Set(['popular']));
    // The tally counts each interaction's weight, the model the users' folded weights: same head.
    expect(ids(before).slice(0, 2)).to.deep.equal(ids(after).slice(0, 2));
    expect(ids(before)[0]).to.equal('D');
  });

  it("publishes popularity as a large organization's first snapshot, then the trained model", async () => {
    const snapshots = new RecordingSnapshotStore();
    const { handlers } = buildHandlers({ snapshots, popularityFirstFrom: 10 });
    const published = snapshots.published;
    await handlers.upsertItems({ items: SHOP_ITEMS }, ctx);
    await handlers.recordInteractions({ interactions: SHOP_INTERACTIONS }, ctx);
    const info = await handlers.rebuildModel({}, ctx);
    expect(info.version).to.equal(2);
    expect(published).to.deep.equal(['1:popularity', `2:${info.algorithm}`]);
    await handlers.recordInteractions({ interactions: [interaction('zed', 'B', 'purchase')] }, ctx);
    await handlers.rebuildModel({}, ctx);
    expect(published.slice(2), 'later trainings publish models only').to.deep.equal([
      `3:${info.algorithm}`,
    ]);
  });

  it('trains a small log straight away: its first snapshot is the model', async () => {
    const snapshots = new RecordingSnapshotStore();
    const { handlers } = buildHandlers({ snapshots });
    await handlers.recordInteractions({ interactions: SHOP_INTERACTIONS }, ctx);
    const info = await handlers.rebuildModel({}, ctx);
    expect(snapshots.published).to.deep.equal([`1:${info.algorithm}`]);
  });

  it('retrains over a snapshot it cannot read (an earlier format) instead of failing', async () => {
    const snapshots = new RecordingSnapshotStore();
    const header = Buffer.from(JSON.stringify({ algorithm: 'ease', version: 1, sections: [4] }));
    const length = Buffer.alloc(4);
    length.writeUInt32LE(header.length);
    await snapshots.publish('org_a', { version: 1, blob: Buffer.concat([length, header]) });
    const { handlers, deps } = buildHandlers({ snapshots });
    expect(await deps.models.refresh('org_a')).to.equal(undefined);
    await handlers.upsertItems({ items: SHOP_ITEMS }, ctx);
    await handlers.recordInteractions({ interactions: SHOP_INTERACTIONS }, ctx);
    const info = await handlers.rebuildModel({}, ctx);
    expect(info.version).to.equal(2);
    expect(ids(await handlers.recommend(recommendRequest('alice'), ctx))[0]).to.equal('B');
  });

  it('trains again when asked while a training runs on an older log: the answer covers every interaction stored before the call', async () => {
    const { handlers, deps } = buildHandlers();
    await handlers.recordInteractions({ interactions: SHOP_INTERACTIONS }, ctx);
    const first = deps.models.rebuild('org_a');
    const later = [interaction('zed', 'A', 'purchase'), interaction('zed', 'B', 'purchase')];
    await handlers.recordInteractions({ interactions: later }, ctx);
    const info = await handlers.rebuildModel({}, ctx);
    expect((await first)!.data.interactions).to.equal(SHOP_INTERACTIONS.length);
    expect(info.interactions).to.equal(SHOP_INTERACTIONS.length + later.length);
    expect(info.version).to.equal(2);
  });
});
