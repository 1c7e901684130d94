import { expect } from 'chai';
import type { MongoConnection } from '@switchyard/shared';
import { contractSuite, freshMongoDatabase } from '@switchyard/shared/testing';
import { ObjectId } from 'mongodb';
import type { CatalogItem } from '../src/model/types';
import { MongoInteractionStore } from '../src/store/interactions/mongo';
import { MongoItemStore } from '../src/store/items/mongo';

const item: CatalogItem = {
  itemId: 'tent',
  catalog: 'ecommerce',
  title: 'Tent',
  categories: ['camping'],
  attributesJson: '{}',
  available: true,
  updatedAt: '2026-01-01T00:00:00.000Z',
};

/** The earlier layout: one document per item and per interaction, with ObjectId ids. */
async function storeEarlierLayout(mongo: MongoConnection): Promise<void> {
  await mongo.db.collection('items').insertMany([
    { _id: new ObjectId(), organization: 'org_a', ...item },
    { _id: new ObjectId(), organization: 'org_b', ...item, title: 'B tent' },
  ]);
  const interaction = (userId: string, itemId: string, timestamp: number, key: string) => ({
    _id: new ObjectId(),
    organization: 'org_a',
    key,
    userId,
    itemId,
    type: 'view',
    value: 0,
    timestamp,
  });
  await mongo.db
    .collection('interactions')
    .insertMany([
      interaction('u1', 'tent', 1, 'id:1'),
      interaction('u2', 'tent', 2, '["u2","tent","view",0,2]'),
      interaction('u1', 'stove', 3, 'id:3'),
    ]);
}

contractSuite<MongoConnection>(
  'Recommendation stores, the earlier MongoDB layout',
  { mongo: freshMongoDatabase('test_reco_layout') },
  (mongo) => {
    it('is moved at start, once, even when two replicas start at the same time', async () => {
      await storeEarlierLayout(mongo());
      const [one, two] = [
        new MongoInteractionStore(mongo().db),
        new MongoInteractionStore(mongo().db),
      ];
      const [itemsOne, itemsTwo] = [new MongoItemStore(mongo().db), new MongoItemStore(mongo().db)];
      await Promise.all([
        one.ensureIndexes(),
        two.ensureIndexes(),
        itemsOne.ensureIndexes(),
        itemsTwo.ensureIndexes(),
      ]);

      expect(await itemsOne.get('org_a', 'tent')).to.deep.equal(item);
      expect((await itemsTwo.get('org_b', 'tent'))?.title).to.equal('B tent');
      expect((await one.forUser('org_a', 'u1')).map((i) => i.itemId)).to.deep.equal([
        'tent',
        'stove',
      ]);
      expect(await one.count('org_a')).to.equal(3);
      expect(await one.organizations()).to.deep.equal(['org_a']);
      // A retried interaction of the earlier layout is still recognised by its key.
      expect(
        await two.append('org_a', [
          {
            userId: 'u2',
            itemId: 'tent',
            type: 'view',
            value: 0,
            timestamp: 2,
            dedupeKey: '["u2","tent","view",0,2]',
          },
        ]),
      ).to.deep.equal([]);
      expect(await mongo().db.collection('items').countDocuments()).to.equal(0);
      expect(await mongo().db.collection('interactions').countDocuments()).to.equal(0);
    });

    it('does not overwrite an item written in the current layout', async () => {
      await storeEarlierLayout(mongo());
      const items = new MongoItemStore(mongo().db);
      await items.upsert('org_a', [{ ...item, title: 'Newer tent' }]);
      await items.ensureIndexes();
      expect((await items.get('org_a', 'tent'))?.title).to.equal('Newer tent');
    });
  },
);
