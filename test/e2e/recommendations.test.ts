import { expect } from 'chai';
import { api, callApi } from '../support/http';
import { mesh } from '../support/mesh';
import { secondOrganization } from './knowledge.test';

const ITEMS = [
  {
    itemId: 'tent',
    catalog: 'ecommerce',
    title: 'Two-person tent',
    categories: ['camping'],
    attributes: { price: 199 },
  },
  { itemId: 'stove', catalog: 'ecommerce', title: 'Camping stove', categories: ['camping'] },
  { itemId: 'lamp', catalog: 'ecommerce', title: 'Head lamp', categories: ['camping'] },
  { itemId: 'mug', catalog: 'ecommerce', title: 'Enamel mug', categories: ['kitchen'] },
  { itemId: 'socks', catalog: 'ecommerce', title: 'Wool socks', categories: ['apparel'] },
];

describe('e2e: recommendations', () => {
  before(async () => {
    const items = await api('/api/v2/catalog/items', { body: { items: ITEMS } });
    expect(items.status, items.text).to.equal(200);
    expect(items.body.upserted).to.equal(ITEMS.length);
    // Campers buy tent + stove together; everyone buys socks (most popular).
    const interactions = [];
    for (let i = 0; i < 6; i++) {
      interactions.push({ userId: `camper${i}`, itemId: 'tent', type: 'purchase' });
      interactions.push({ userId: `camper${i}`, itemId: 'stove', type: 'purchase' });
    }
    for (let i = 0; i < 10; i++)
      interactions.push({ userId: `walker${i}`, itemId: 'socks', type: 'purchase' });
    interactions.push({ userId: 'camper0', itemId: 'lamp', type: 'view' });
    interactions.push({ userId: 'alice', itemId: 'tent', type: 'purchase' });
    const recorded = await api('/api/v2/interactions', { body: { interactions } });
    expect(recorded.status, recorded.text).to.equal(200);
    expect(recorded.body.recorded).to.equal(interactions.length);
    // Train now rather than waiting for the scheduled rebuild.
    const model = await api('/api/v2/ai/recommendations/model', { body: {} });
    expect(model.status, model.text).to.equal(200);
    expect(model.body).to.include({
      algorithm: 'item_knn',
      items: 4,
      users: 17,
      interactions: interactions.length,
    });
  });

  it('recommends co-occurring items, excluding what the user already has', async () => {
    const res = await api('/api/v2/ai/recommendations', {
      body: { userId: 'alice', numRecommendations: 3 },
    });
    expect(res.status).to.equal(200);
    expect(res.body).to.have.all.keys('userId', 'recommendations', 'requestId');
    expect(res.body.userId).to.equal('alice');
    expect(res.body.requestId).to.equal(res.headers.get('x-request-id'));
    const ids = res.body.recommendations.map((r: { itemId: string }) => r.itemId);
    expect(ids[0]).to.equal('stove');
    expect(ids).to.not.include('tent');
    expect(ids.length).to.be.at.most(3);
    const first = res.body.recommendations[0];
    expect(first).to.include.keys('itemId', 'score', 'reason', 'item');
    expect(first.score).to.be.within(0, 1);
    expect(first.item.title).to.equal('Camping stove');
  });

  it('falls back to popularity for an unknown user', async () => {
    const res = await api('/api/v2/ai/recommendations', {
      body: { userId: 'newcomer', numRecommendations: 2 },
    });
    expect(res.status).to.equal(200);
    expect(res.body.recommendations[0].itemId).to.equal('socks');
    expect(res.body.recommendations[0].reason).to.match(/popular/);
  });

  it('favours items related to currentItemId and never returns the current item', async () => {
    const res = await api('/v2/ai/recommendations', {
      body: { userId: 'newcomer', currentItemId: 'tent', numRecommendations: 3 },
    });
    expect(res.status).to.equal(200);
    const ids = res.body.recommendations.map((r: { itemId: string }) => r.itemId);
    expect(ids[0]).to.equal('stove');
    expect(ids).to.not.include('tent');
  });

  it('defaults numRecommendations to 10 and bounds it to 100', async () => {
    const res = await api('/api/v2/ai/recommendations', { body: { userId: 'newcomer' } });
    expect(res.status).to.equal(200);
    expect(res.body.recommendations.length).to.be.at.most(10);
    const tooMany = await api('/api/v2/ai/recommendations', {
      body: { userId: 'newcomer', numRecommendations: 101 },
    });
    expect(tooMany.status).to.equal(400);
    expect(tooMany.body.error.details[0].field).to.equal('/numRecommendations');
  });

  it('reads and deletes catalog items', async () => {
    const got = await api('/api/v2/catalog/items/mug');
    expect(got.status).to.equal(200);
    expect(got.body.title).to.equal('Enamel mug');
    const deleted = await api('/api/v2/catalog/items/mug', { method: 'DELETE' });
    expect(deleted.status).to.be.oneOf([200, 204]);
    const gone = await api('/api/v2/catalog/items/mug');
    expect(gone.status).to.equal(404);
  });

  it('says how many records were stored, merged as duplicates, or are on unknown items', async () => {
    const m = await mesh();
    const key = await secondOrganization();
    const call = (path: string, body: unknown) => callApi(m.gatewayUrl, key, path, { body });
    const items = await call('/api/v2/catalog/items', {
      items: [ITEMS[0], ITEMS[1], { ...ITEMS[0], title: 'Three-person tent' }],
    });
    expect(items.status, items.text).to.equal(200);
    expect(items.body).to.include({ upserted: 2, duplicates: 1 });
    const timestamp = '2026-03-01T10:00:00Z';
    const ticket = { userId: 'u1', itemId: 'tent', type: 'ticket', timestamp };
    const interactions = [
      ticket,
      { ...ticket }, // the same interaction twice in the batch
      { userId: 'u1', itemId: 'stove', type: 'view', timestamp },
      { userId: 'u2', itemId: 'not-in-catalog', type: 'purchase', timestamp },
    ];
    const first = await call('/api/v2/interactions', { interactions });
    expect(first.status, first.text).to.equal(200);
    expect(first.body).to.include({ recorded: 3, duplicates: 1, unknownItems: 1 });
    const again = await call('/api/v2/interactions', { interactions });
    expect(again.body).to.include({ recorded: 0, duplicates: 4, unknownItems: 0 });
  });

  it('never answers empty: catalog items before any interaction, then popularity before the first model', async () => {
    const m = await mesh();
    const key = await secondOrganization();
    const call = (path: string, body: unknown) => callApi(m.gatewayUrl, key, path, { body });
    const catalog = [
      ...ITEMS,
      { itemId: 'gone', catalog: 'ecommerce', title: 'Sold out', categories: [], available: false },
    ];
    expect((await call('/api/v2/catalog/items', { items: catalog })).status).to.equal(200);

    const first = await call('/api/v2/ai/recommendations', { userId: 'anyone' });
    expect(first.status, first.text).to.equal(200);
    const firstIds = first.body.recommendations.map((r: { itemId: string }) => r.itemId);
    expect(firstIds).to.have.members(ITEMS.map((i) => i.itemId));
    for (const r of first.body.recommendations) expect(r.reason).to.equal('catalog');

    // Ten purchases of socks, two of the tent; no training asked for: the answer comes at once.
    const interactions = [
      ...Array.from({ length: 10 }, (_, i) => ({
        userId: `w${i}`,
        itemId: 'socks',
        type: 'purchase',
      })),
      ...Array.from({ length: 2 }, (_, i) => ({
        userId: `c${i}`,
        itemId: 'tent',
        type: 'purchase',
      })),
    ];
    expect((await call('/api/v2/interactions', { interactions })).status).to.equal(200);
    const popular = await call('/api/v2/ai/recommendations', {
      userId: 'newcomer',
      numRecommendations: 2,
    });
    expect(popular.status, popular.text).to.equal(200);
    expect(popular.body.recommendations.map((r: { itemId: string }) => r.itemId)).to.deep.equal([
      'socks',
      'tent',
    ]);
    for (const r of popular.body.recommendations) expect(r.reason).to.equal('popular');
    // Filtered as usual: a price range only the tent is in.
    const filtered = await call('/api/v2/ai/recommendations', {
      userId: 'newcomer',
      minPrice: 100,
    });
    expect(filtered.body.recommendations.map((r: { itemId: string }) => r.itemId)).to.deep.equal([
      'tent',
    ]);
  });
});
