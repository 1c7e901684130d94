import { expect } from 'chai';
import type { UserInteraction } from '../src/model/types';
import { collectColumns, trainingSetFromColumns } from '../src/model/training-set';
import { InMemoryInteractionStore } from '../src/store';

const keyed = (i: UserInteraction) => ({
  ...i,
  dedupeKey: JSON.stringify([i.userId, i.itemId, i.type, i.value, i.timestamp]),
});

describe('InMemoryInteractionStore (columns)', () => {
  it('keeps every user in order across chunks and drops retries by their fields, keys or not', async () => {
    const store = new InMemoryInteractionStore();
    // More than one chunk of 65,536 entries, users interleaved, ratings with fractions.
    const log: UserInteraction[] = Array.from({ length: 70_000 }, (_, k) => ({
      userId: `u${k % 997}`,
      itemId: `i${(k * 31) % 5003}`,
      type: k % 3 === 0 ? 'rating' : 'view',
      value: k % 3 === 0 ? 1 + (k % 40) / 10 : 0,
      timestamp: 1_700_000_000_000 + k,
    }));
    const stored = await store.append('org', log.map(keyed));
    expect(stored).to.have.length(log.length);
    expect(await store.count('org')).to.equal(log.length);
    // A retried batch, and keyless repeats (two "now" views are two views).
    expect(await store.append('org', log.slice(0, 5000).map(keyed))).to.deep.equal([]);
    expect(await store.append('org', log.slice(0, 10))).to.have.length(10);
    expect(await store.count('org')).to.equal(log.length + 10);
    const u5 = await store.forUser('org', 'u5');
    expect(u5).to.deep.equal([
      ...log.filter((i) => i.userId === 'u5'),
      ...log.slice(0, 10).filter((i) => i.userId === 'u5'),
    ]);
    let scanned = 0;
    for await (const _ of store.scan('org')) scanned++;
    expect(scanned).to.equal(log.length + 10);
    expect(await store.forUser('other', 'u5')).to.deep.equal([]);
  });

  it('tells a retry from a different interaction by every field', async () => {
    const store = new InMemoryInteractionStore();
    const base: UserInteraction = {
      userId: 'u',
      itemId: 'i',
      type: 'rating',
      value: 3.5,
      timestamp: 10,
    };
    await store.append('org', [keyed(base)]);
    const variants: UserInteraction[] = [
      { ...base, userId: 'v' },
      { ...base, itemId: 'j' },
      { ...base, type: 'view', value: 0 },
      { ...base, value: 3.6 },
      { ...base, timestamp: 11 },
    ];
    expect(await store.append('org', [keyed(base), ...variants.map(keyed)])).to.deep.equal(
      variants,
    );
  });

  it('hands training the same log as columns as its scan gives, without an object per interaction', async () => {
    const store = new InMemoryInteractionStore();
    const log: UserInteraction[] = Array.from({ length: 70_000 }, (_, k) => ({
      userId: `u${(k * 7) % 1013}`,
      itemId: `i${(k * 13) % 4001}`,
      type: k % 5 === 0 ? 'rating' : k % 2 === 0 ? 'purchase' : 'view',
      value: k % 5 === 0 ? 1 + (k % 5) : 0,
      timestamp: k * 1000,
    }));
    await store.append('org', log);
    const direct = await store.columns('org');
    const scanned = await collectColumns(store.scan('org'));
    expect(direct.length).to.equal(log.length);
    // Indexes may differ (first appearance in the log or in the scan): compare what they fold to.
    const rows = (columns: typeof direct) => {
      const set = trainingSetFromColumns(columns, 10);
      const byUser: string[] = [];
      for (let u = 0; u < set.users; u++) {
        const entries: string[] = [];
        for (let k = set.rowStart[u]; k < set.rowStart[u + 1]; k++)
          entries.push(`${set.itemIds[set.items[k]]}:${set.weights[k].toFixed(5)}`);
        byUser.push(entries.sort().join());
      }
      return byUser.sort();
    };
    expect(rows(direct)).to.deep.equal(rows(scanned));
    expect((await store.columns('none')).length).to.equal(0);
  });
});
