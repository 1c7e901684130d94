import { expect } from 'chai';
import { capUserRows } from '../src/model/co-occurrence';
import { trainEase } from '../src/model/ease';
import { foldUserSignals } from '../src/model/interaction-weights';
import { ItemModel, rankPositive } from '../src/model/item-model';
import { trainSparseEase, type SparseEaseOptions } from '../src/model/sparse-ease';
import { trainModel } from '../src/model/train-model';
import { buildTrainingSet } from '../src/model/training-set';
import { INTERACTION_TYPES, type UserInteraction } from '../src/model/types';
import { TEST_CONFIG } from './fixtures';

const DAY = 86_400_000;

function random(seed: number): () => number {
  return () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
}

/** A log of mixed types, ratings and times; users draw items from a few overlapping tastes. */
function log(users: number, items: number, perUser: number, seed = 1): UserInteraction[] {
  const next = random(seed);
  const out: UserInteraction[] = [];
  for (let u = 0; u < users; u++) {
    const taste = Math.floor(next() * 4);
    for (let k = 0; k < perUser; k++) {
      const item = (taste * Math.floor(items / 4) + Math.floor(next() * next() * items)) % items;
      const type = INTERACTION_TYPES[Math.floor(next() * INTERACTION_TYPES.length)];
      out.push({
        userId: `u${u}`,
        itemId: `i${item}`,
        type,
        value: type === 'rating' ? 1 + Math.floor(next() * 5) : 0,
        timestamp: Math.floor(next() * 90 * DAY),
      });
    }
  }
  return out;
}

describe('training set from columns', () => {
  it('folds each user exactly as serving folds a profile (types, ratings, saturation, decay)', () => {
    const interactions = log(40, 30, 25, 3);
    const newest = Math.max(...interactions.map((i) => i.timestamp));
    for (const halfLife of [0, 20]) {
      const set = buildTrainingSet(interactions, halfLife);
      const users = [...new Set(interactions.map((i) => i.userId))];
      expect(set.users).to.equal(users.length);
      expect(set.interactions).to.equal(interactions.length);
      users.forEach((userId, u) => {
        const expected = foldUserSignals(
          interactions.filter((i) => i.userId === userId),
          newest,
          halfLife,
        );
        const row = new Map<string, number>();
        for (let k = set.rowStart[u]; k < set.rowStart[u + 1]; k++)
          row.set(set.itemIds[set.items[k]], set.weights[k]);
        expect([...row.keys()].sort()).to.deep.equal(
          [...expected]
            .filter(([, s]) => s.weight > 0)
            .map(([id]) => id)
            .sort(),
        );
        for (const [itemId, weight] of row)
          expect(weight).to.be.closeTo(expected.get(itemId)!.weight, 1e-6);
      });
    }
  });
});

describe('sparse EASE', () => {
  const exact: SparseEaseOptions = {
    lambda: 5,
    neighbours: 1000,
    solverSteps: 1000,
    rowLimit: 1000,
    historyCap: 1000,
  };

  it('is EASE when every item is in every neighbourhood and the solver runs to the end', () => {
    // Every user holds most items, so every pair co-occurs and each neighbourhood is all items.
    const set = buildTrainingSet(
      log(30, 12, 40, 5).filter((i) => i.type !== 'view'),
      0,
    );
    const n = set.itemIds.length;
    const dense = trainEase(set, exact.lambda);
    const sparse = trainSparseEase(set, exact);
    const rebuilt = new Float64Array(n * n);
    for (let i = 0; i < n; i++)
      for (let k = sparse.rowStart[i]; k < sparse.rowStart[i + 1]; k++)
        rebuilt[i * n + sparse.cols[k]] = sparse.values[k];
    for (let i = 0; i < n * n; i++) expect(rebuilt[i]).to.be.closeTo(dense[i], 1e-3);
  });

  it('keeps rows sorted best first and cut to rowLimit, and neighbourhoods to `neighbours` items', () => {
    const set = buildTrainingSet(log(200, 300, 20, 9), 0);
    const weights = trainSparseEase(set, {
      ...exact,
      neighbours: 10,
      solverSteps: 3,
      rowLimit: 15,
    });
    const perColumn = new Map<number, number>();
    for (let i = 0; i < set.itemIds.length; i++) {
      const row = weights.values.subarray(weights.rowStart[i], weights.rowStart[i + 1]);
      expect(row.length).to.be.at.most(15);
      for (let k = 1; k < row.length; k++) expect(row[k]).to.be.at.most(row[k - 1]);
      for (let k = weights.rowStart[i]; k < weights.rowStart[i + 1]; k++)
        perColumn.set(weights.cols[k], (perColumn.get(weights.cols[k]) ?? 0) + 1);
    }
    for (const count of perColumn.values()) expect(count).to.be.at.most(10);
  });

  it('recommends what co-occurs: a user with taste-0 items gets taste-0 items first', () => {
    // Two disjoint tastes: items a* go together, items b* go together.
    const interactions: UserInteraction[] = [];
    for (let u = 0; u < 60; u++) {
      const taste = u % 2 === 0 ? 'a' : 'b';
      for (let k = 0; k < 5; k++)
        interactions.push({
          userId: `u${u}`,
          itemId: `${taste}${(u + k) % 8}`,
          type: 'purchase',
          value: 0,
          timestamp: k,
        });
    }
    const model = new ItemModel(
      trainModel(
        buildTrainingSet(interactions, 0),
        { ...TEST_CONFIG.training, algorithm: 'sparse_ease', sparseEase: { ...exact, lambda: 1 } },
        1,
      ),
    );
    const ranked = model.rankUser(
      new Map([
        ['a1', 1],
        ['a2', 1],
      ]),
      5,
      ['a1', 'a2'],
    );
    const ids = [...ranked.order].map((i) => model.itemId(i));
    expect(ids.length).to.be.greaterThan(0);
    for (const id of ids) expect(id.startsWith('a'), ids.join()).to.equal(true);
    expect(model.rankedRelated('b3')!.order.length).to.be.greaterThan(0);
    for (const i of model.rankedRelated('b3')!.order) expect(model.itemId(i)).to.match(/^b/);
  });
});

describe('sparse scoring', () => {
  it('ranks a profile as a full score-and-sort would, excluded items left out, buffers reused', () => {
    const set = buildTrainingSet(log(300, 400, 15, 11), 0);
    const model = new ItemModel(
      trainModel(
        set,
        {
          ...TEST_CONFIG.training,
          algorithm: 'sparse_ease',
          sparseEase: { ...TEST_CONFIG.training.sparseEase, neighbours: 20, rowLimit: 30 },
        },
        1,
      ),
    );
    const next = random(17);
    for (let trial = 0; trial < 30; trial++) {
      const profile = new Map<string, number>();
      for (let k = 0; k < 1 + Math.floor(next() * 20); k++)
        profile.set(`i${Math.floor(next() * 400)}`, 0.25 + next());
      const excluded = [...profile.keys()].filter(() => next() < 0.5);
      const scores = model.scoreUser(profile);
      for (const id of excluded) if (model.index(id) !== undefined) scores[model.index(id)!] = 0;
      const expected = rankPositive(scores, model.data.itemIds, 50);
      const ranked = model.rankUser(profile, 50, excluded);
      expect([...ranked.order]).to.deep.equal([...expected.order]);
      for (let k = 0; k < ranked.strength.length; k++)
        expect(ranked.strength[k]).to.be.closeTo(expected.strength[k], 1e-6);
    }
  });
});

describe('history cap', () => {
  it("keeps each user's strongest entries for co-occurrence counting", () => {
    const interactions: UserInteraction[] = [
      ...['a', 'b', 'c', 'd'].map((itemId, k) => ({
        userId: 'heavy',
        itemId,
        type: k < 2 ? ('purchase' as const) : ('view' as const),
        value: 0,
        timestamp: k,
      })),
      { userId: 'light', itemId: 'a', type: 'view', value: 0, timestamp: 9 },
    ];
    const set = buildTrainingSet(interactions, 0);
    const capped = capUserRows(set, 2);
    const heavy = [...capped.items.subarray(capped.rowStart[0], capped.rowStart[1])].map(
      (i) => set.itemIds[i],
    );
    expect(heavy).to.deep.equal(['a', 'b']);
    expect(capped.rowStart[2] - capped.rowStart[1]).to.equal(1);
    expect(capUserRows(set, 4)).to.equal(set);
  });
});
