import { GroupedInserts } from '../src/store/grouped-inserts';
import { expect } from './chai';
import { freshMongoDatabase } from './helpers';

describe('GroupedInserts on MongoDB', function () {
  const mongo = freshMongoDatabase();

  it('inserts concurrent documents in few writes, each one inserted or refused on its own _id', async () => {
    const collection = mongo().db.collection<{ _id: string; writer: number }>('grouped');
    await collection.insertOne({ _id: 'taken', writer: -1 });
    const inserts = new GroupedInserts(collection);
    let writes = 0;
    const insertMany = collection.insertMany.bind(collection);
    collection.insertMany = ((...args: Parameters<typeof insertMany>) => {
      writes += 1;
      return insertMany(...args);
    }) as typeof collection.insertMany;
    const ids = Array.from({ length: 30 }, (_, i) => (i % 10 === 9 ? 'taken' : `doc_${i % 15}`));
    const results = await Promise.all(ids.map((_id, writer) => inserts.insert({ _id, writer })));
    const stored = new Map((await collection.find().toArray()).map((d) => [d._id, d.writer]));
    expect(stored.size).to.equal(16);
    expect(stored.get('taken')).to.equal(-1);
    for (const id of new Set(ids)) {
      const winners = ids.flatMap((other, writer) =>
        other === id && results[writer] ? [writer] : [],
      );
      expect(winners, id).to.deep.equal(id === 'taken' ? [] : [stored.get(id)]);
    }
    expect(writes).to.be.within(2, 29);
  });
});
