import { expect } from 'chai';
import { AppError } from '@switchyard/shared';
import { startHarness, resetDoubles, type Harness } from './harness';
import { expectShape } from './shape';
import { CatalogItem, RecommendationsResponse, ModelInfo } from '../src/schemas/recommendations';

const expectedItem = {
  itemId: 'sku-1',
  catalog: 'ecommerce',
  title: 'Trail shoe',
  categories: ['shoes', 'outdoor'],
  attributes: { price: 89.5, color: 'blue' },
  available: true,
  updatedAt: '2026-11-21T15:04:47.184Z',
};

describe('gateway recommendation and catalog routes', () => {
  let h: Harness;
  before(async () => (h = await startHarness()));
  after(() => h.stop());
  afterEach(() => resetDoubles(h));

  describe('POST /api/v2/ai/recommendations', () => {
    it('maps camelCase to the proto, defaults numRecommendations to 10, parses attributes', async () => {
      const reply = await h.send('POST', '/api/v2/ai/recommendations', {
        body: { userId: 'u1', currentItemId: 'sku-9' },
      });
      expect(reply.status).to.equal(200);
      expect(reply.body).to.deep.equal({
        userId: 'u1',
        recommendations: [
          { itemId: 'sku-1', score: 0.93, reason: 'bought together', item: expectedItem },
        ],
        requestId: reply.requestId,
      });
      expectShape(reply.body, RecommendationsResponse);
      expect(h.doubles.recommendation.last('Recommend').request).to.deep.equal({
        user_id: 'u1',
        current_item_id: 'sku-9',
        num_recommendations: 10,
        catalog: '',
        categories: [],
        max_per_category: 0,
      });
    });

    it('passes the filters: categories, price range (unset stays unset), diversity', async () => {
      const body = {
        userId: 'u1',
        categories: ['rock', 'jazz'],
        minPrice: 10,
        maxPrice: 80.5,
        maxPerCategory: 2,
      };
      expect((await h.send('POST', '/api/v2/ai/recommendations', { body })).status).to.equal(200);
      expect(h.doubles.recommendation.last('Recommend').request).to.deep.include({
        categories: ['rock', 'jazz'],
        min_price: 10,
        max_price: 80.5,
        max_per_category: 2,
      });
      await h.send('POST', '/api/v2/ai/recommendations', { body: { userId: 'u1', maxPrice: 5 } });
      const request = h.doubles.recommendation.last('Recommend').request as Record<string, unknown>;
      expect(request.max_price).to.equal(5);
      expect(request.min_price, 'no lower bound given').to.equal(undefined);
    });

    it('rejects bad filters with the field', async () => {
      const reply = await h.send('POST', '/api/v2/ai/recommendations', {
        body: { userId: 'u1', maxPerCategory: 0, minPrice: -1 },
      });
      expect(reply.status).to.equal(400);
      expect(reply.body.error.details.map((d: { field: string }) => d.field)).to.include.members([
        '/maxPerCategory',
        '/minPrice',
      ]);
    });

    it('POST /api/v2/ai/recommendations/model rebuilds and reports the model now served', async () => {
      const reply = await h.send('POST', '/api/v2/ai/recommendations/model', {});
      expect(reply.status).to.equal(200);
      expect(reply.body).to.deep.equal({
        algorithm: 'ease',
        version: 3,
        items: 1682,
        users: 943,
        interactions: 75066,
        trainedAt: '2026-11-24T03:00:00.000Z',
        trainingMs: 4200,
        requestId: reply.requestId,
      });
      expectShape(reply.body, ModelInfo);
    });

    it('answers the alias /v2/ai/recommendations and passes numRecommendations and catalog', async () => {
      const reply = await h.send('POST', '/v2/ai/recommendations', {
        body: { userId: 'u1', numRecommendations: 3, catalog: 'ticketing' },
      });
      expect(reply.status).to.equal(200);
      expect(reply.body.requestId).to.equal(reply.requestId);
      expect(h.doubles.recommendation.last('Recommend').request).to.include({
        num_recommendations: 3,
        catalog: 'ticketing',
      });
    });

    it('rejects numRecommendations above 100 and a missing userId', async () => {
      const reply = await h.send('POST', '/api/v2/ai/recommendations', {
        body: { numRecommendations: 101 },
      });
      expect(reply.status).to.equal(400);
      expect(reply.body.error.details.map((d: { field: string }) => d.field)).to.have.members([
        '/userId',
        '/numRecommendations',
      ]);
    });
  });

  describe('catalog ingestion', () => {
    it('POST /api/v2/catalog/items upserts with attributes as JSON and available defaulting to true', async () => {
      const reply = await h.send('POST', '/api/v2/catalog/items', {
        body: {
          items: [
            {
              itemId: 'c-1',
              catalog: 'education',
              title: 'Intro to SQL',
              categories: ['data'],
              attributes: { level: 'beginner' },
            },
            { itemId: 'e-1', catalog: 'ticketing', title: 'Concert', available: false },
          ],
        },
      });
      expect(reply.status).to.equal(200);
      expect(reply.body).to.deep.equal({ upserted: 2, duplicates: 0, requestId: reply.requestId });
      const items = h.doubles.recommendation.last('UpsertItems').request.items;
      expect(items[0]).to.include({
        item_id: 'c-1',
        catalog: 'education',
        title: 'Intro to SQL',
        attributes_json: '{"level":"beginner"}',
        available: true,
      });
      expect(items[1]).to.include({ item_id: 'e-1', attributes_json: '{}', available: false });
    });

    it('rejects an empty batch and an unknown catalog', async () => {
      expect(
        (await h.send('POST', '/api/v2/catalog/items', { body: { items: [] } })).body.error
          .details[0].field,
      ).to.equal('/items');
      const reply = await h.send('POST', '/api/v2/catalog/items', {
        body: { items: [{ itemId: 'x', catalog: 'groceries', title: 't' }] },
      });
      expect(reply.body.error.details).to.deep.equal([
        { field: '/items/0/catalog', reason: 'must be equal to one of the allowed values' },
      ]);
    });

    it('GET /api/v2/catalog/items/:itemId returns the item in camelCase', async () => {
      const reply = await h.send('GET', '/api/v2/catalog/items/sku-1');
      expect(reply.status).to.equal(200);
      expect(reply.body).to.deep.equal(expectedItem);
      expectShape(reply.body, CatalogItem);
      expect(h.doubles.recommendation.last('GetItem').request).to.deep.equal({ item_id: 'sku-1' });
    });

    it('GET of an unknown item: 404 from the service', async () => {
      h.doubles.recommendation.on('GetItem', async () => {
        throw AppError.notFound('item not found');
      });
      expect((await h.send('GET', '/api/v2/catalog/items/nope')).status).to.equal(404);
    });

    it('DELETE /api/v2/catalog/items/:itemId answers 204 without body; 404 when nothing was deleted', async () => {
      const reply = await h.send('DELETE', '/api/v2/catalog/items/sku-1');
      expect(reply.status).to.equal(204);
      expect(reply.body).to.equal('');
      expect(reply.requestId).to.match(/^req_/);
      h.doubles.recommendation.on('DeleteItem', async () => ({ deleted: false }));
      expect((await h.send('DELETE', '/api/v2/catalog/items/sku-1')).status).to.equal(404);
    });

    it('POST /api/v2/interactions records them, filling the timestamp when absent', async () => {
      const reply = await h.send('POST', '/api/v2/interactions', {
        body: {
          interactions: [
            { userId: 'u1', itemId: 'sku-1', type: 'purchase', timestamp: '2026-11-20T10:00:00Z' },
            { userId: 'u1', itemId: 'sku-2', type: 'rating', value: 4 },
          ],
        },
      });
      expect(reply.status).to.equal(200);
      expect(reply.body).to.deep.equal({
        recorded: 2,
        duplicates: 0,
        unknownItems: 0,
        requestId: reply.requestId,
      });
      const [first, second] =
        h.doubles.recommendation.last('RecordInteractions').request.interactions;
      expect(first).to.include({
        user_id: 'u1',
        item_id: 'sku-1',
        type: 'purchase',
        value: 0,
        timestamp: '2026-11-20T10:00:00Z',
      });
      expect(second).to.include({ type: 'rating', value: 4 });
      expect(Date.parse(second.timestamp)).to.be.closeTo(Date.now(), 5000);
    });

    it('a rating needs a value from 1 to 5; timestamps must be date-times', async () => {
      const reply = await h.send('POST', '/api/v2/interactions', {
        body: {
          interactions: [
            { userId: 'u', itemId: 'i', type: 'rating' },
            { userId: 'u', itemId: 'i', type: 'rating', value: 9 },
            { userId: 'u', itemId: 'i', type: 'view', timestamp: 'yesterday' },
          ],
        },
      });
      expect(reply.status).to.equal(400);
      expect(reply.body.error.details.map((d: { field: string }) => d.field)).to.have.members([
        '/interactions/0/value',
        '/interactions/1/value',
        '/interactions/2/timestamp',
      ]);
    });
  });
});
