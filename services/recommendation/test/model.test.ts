import { expect } from 'chai';
import { trainEase } from '../src/model/ease';
import { decayFactor, foldUserSignals } from '../src/model/interaction-weights';
import { decodeModel, encodeModel, ItemModel, rankPositive } from '../src/model/item-model';
import { trainItemKnn } from '../src/model/item-knn';
import { chooseAlgorithm, trainModel } from '../src/model/train-model';
import { buildTrainingSet } from '../src/model/training-set';
import type { InteractionType, UserInteraction } from '../src/model/types';
import { TEST_CONFIG } from './fixtures';

const DAY = 86_400_000;
let clock = 0;
function event(
  userId: string,
  itemId: string,
  type: InteractionType = 'purchase',
  value = 0,
  timestamp = ++clock,
): UserInteraction {
  return { userId, itemId, type, value, timestamp };
}

const baskets = [
  event('u1', 'A'),
  event('u1', 'B'),
  event('u2', 'A'),
  event('u2', 'B'),
  event('u3', 'A'),
  event('u3', 'C'),
];

describe('interaction weights', () => {
  it('orders view < click < cart < purchase and ratings by value, all positive', () => {
    const weight = (type: InteractionType, value = 0) =>
      foldUserSignals([event('u', 'x', type, value)], clock, 0).get('x')!.weight;
    expect(weight('view')).to.be.lessThan(weight('click'));
    expect(weight('click')).to.be.lessThan(weight('cart'));
    expect(weight('cart')).to.be.lessThan(weight('purchase'));
    expect(weight('rating', 1)).to.be.greaterThan(0);
    expect(weight('rating', 1)).to.be.lessThan(weight('rating', 3));
    expect(weight('rating', 3)).to.be.lessThan(weight('rating', 5));
  });

  it('keeps the newest rating, saturates repeated views and marks ownership', () => {
    const signals = foldUserSignals(
      [
        event('u', 'x', 'rating', 5, 20),
        event('u', 'x', 'rating', 1, 10),
        ...Array.from({ length: 50 }, () => event('u', 'y', 'view', 0, 5)),
      ],
      20,
      0,
    );
    expect(signals.get('x')).to.deep.equal({
      weight: foldUserSignals([event('u', 'x', 'rating', 5)], 0, 0).get('x')!.weight,
      owned: true,
    });
    expect(signals.get('y')!.weight).to.equal(2);
    expect(signals.get('y')!.owned).to.equal(false);
  });

  it('halves an interaction per half-life from the newest one', () => {
    expect(decayFactor(30 * DAY, 30)).to.be.closeTo(0.5, 1e-12);
    expect(decayFactor(30 * DAY, 0)).to.equal(1);
    const signals = foldUserSignals(
      [event('u', 'old', 'purchase', 0, 0), event('u', 'new', 'purchase', 0, 60 * DAY)],
      60 * DAY,
      30,
    );
    expect(signals.get('old')!.weight).to.be.closeTo(signals.get('new')!.weight / 4, 1e-12);
  });
});

describe('EASE', () => {
  it('matches the closed form on two items: B_ab = G_ab / (G_aa + lambda), zero diagonal', () => {
    const set = buildTrainingSet([event('u1', 'a'), event('u1', 'b'), event('u2', 'a')], 0);
    const weights = trainEase(set, 10);
    const [a, b] = [set.itemIds.indexOf('a'), set.itemIds.indexOf('b')];
    // G_aa = 2, G_bb = 1, G_ab = 1 (purchase weight 1).
    expect(weights[a * 2 + b]).to.be.closeTo(1 / (2 + 10), 1e-6);
    expect(weights[b * 2 + a]).to.be.closeTo(1 / (1 + 10), 1e-6);
    expect(weights[a * 2 + a]).to.equal(0);
  });

  it('ranks B first for a user who bought A (users who bought A mostly also bought B)', () => {
    const data = trainModel(
      buildTrainingSet(baskets, 0),
      { ...TEST_CONFIG.training, algorithm: 'ease', easeLambda: 1 },
      1,
    );
    const model = new ItemModel(data);
    const scores = model.scoreUser(new Map([['A', 1]]));
    expect(scores[model.index('B')!]).to.be.greaterThan(scores[model.index('C')!]);
  });
});

describe('item-kNN', () => {
  it('is the cosine over user vectors, keeping the most similar neighbours', () => {
    const set = buildTrainingSet(baskets, 0);
    const knn = trainItemKnn(set, 1);
    const model = new ItemModel({
      ...trainModel(set, { ...TEST_CONFIG.training, algorithm: 'item_knn' }, 1),
      sparse: knn,
    });
    const related = model.related('A');
    expect(related[model.index('B')!]).to.be.closeTo(2 / Math.sqrt(3 * 2), 1e-6);
    expect(related[model.index('C')!], 'only the nearest neighbour is kept').to.equal(0);
  });
});

describe('algorithm choice and snapshots', () => {
  it('takes EASE up to the item limit, sparse EASE beyond, item-kNN below the interaction floor', () => {
    const set = buildTrainingSet(baskets, 0);
    const options = { ...TEST_CONFIG.training, easeMinInteractions: 0 };
    expect(chooseAlgorithm(set, options)).to.equal('ease');
    expect(chooseAlgorithm(set, { ...options, easeMaxItems: 2 })).to.equal('sparse_ease');
    expect(chooseAlgorithm(set, { ...options, easeMinInteractions: 100 })).to.equal('item_knn');
    expect(chooseAlgorithm(set, { ...options, easeMaxItems: 2, algorithm: 'ease' })).to.equal(
      'ease',
    );
    expect(chooseAlgorithm(set, { ...options, algorithm: 'sparse_ease' })).to.equal('sparse_ease');
  });

  for (const algorithm of ['ease', 'sparse_ease', 'item_knn'] as const) {
    it(`encodes and decodes a ${algorithm} model to the same scores`, () => {
      const data = trainModel(
        buildTrainingSet(baskets, 0),
        { ...TEST_CONFIG.training, algorithm },
        7,
      );
      const blob = encodeModel(data);
      const decoded = decodeModel(blob);
      expect(decoded).to.deep.include({
        algorithm,
        version: 7,
        users: 3,
        interactions: 6,
        itemIds: data.itemIds,
      });
      const profile = new Map([
        ['A', 1],
        ['C', 0.5],
      ]);
      expect([...new ItemModel(decoded).scoreUser(profile)]).to.deep.equal([
        ...new ItemModel(data).scoreUser(profile),
      ]);
      // Aligned, the arrays are views on the blob (nothing copied); a blob at an odd offset is copied.
      expect(decoded.popularity.buffer).to.equal(blob.buffer);
      const unaligned = Buffer.concat([Buffer.alloc(3), blob]).subarray(3);
      const copied = decodeModel(unaligned);
      expect(copied.popularity.buffer).to.not.equal(unaligned.buffer);
      expect([...new ItemModel(copied).scoreUser(profile)]).to.deep.equal([
        ...new ItemModel(data).scoreUser(profile),
      ]);
      expect([...decoded.popularity]).to.deep.equal([...data.popularity]);
      const related = new ItemModel(decoded).rankedRelated('A')!;
      expect(
        Array.from(related.order, (i) => decoded.itemIds[i])[0],
        'B goes with A more than C does',
      ).to.equal('B');
      expect(related.strength[0]).to.equal(1);
    });
  }
});

describe('snapshot item ids', () => {
  it('come back exactly as they were, whatever their characters', () => {
    const ids = [
      'tent',
      '',
      'caf\u00e9',
      '\ud83c\udf9f\ufe0f ticket',
      'half \ud800 surrogate',
      'x'.repeat(256),
    ];
    const set = buildTrainingSet(
      ids.map((itemId, k) => event(`u${k % 2}`, itemId || 'placeholder')),
      0,
    );
    const data = {
      ...trainModel(set, { ...TEST_CONFIG.training, algorithm: 'item_knn' }, 1),
      itemIds: [...set.itemIds],
    };
    expect(decodeModel(encodeModel(data)).itemIds).to.deep.equal(data.itemIds);
    expect(
      decodeModel(encodeModel({ ...data, itemIds: ids.slice(0, data.itemIds.length) })).itemIds,
    ).to.deep.equal(ids.slice(0, data.itemIds.length));
  });
});

describe('ranking scores (the top of a profile or of a row)', () => {
  /** The reference: every positive score sorted, ties by item id, then cut. */
  function fullSort(scores: number[], ids: string[], kept: number): number[] {
    return [...scores.keys()]
      .filter((i) => scores[i] > 0)
      .sort((a, b) => scores[b] - scores[a] || (ids[a] < ids[b] ? -1 : 1))
      .slice(0, kept);
  }

  it('keeps exactly the best `kept` positive scores in the order a full sort gives, ties by item id', () => {
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (const [n, kept] of [
      [1, 1],
      [50, 10],
      [1000, 500],
      [300, 1000],
      [40, 0],
    ]) {
      // Few distinct values, so ties are common; some zero and negative scores, never ranked.
      const scores = Array.from({ length: n }, () => Math.floor(random() * 12) - 2);
      const ids = Array.from({ length: n }, (_, i) => `item-${(i * 7919) % n}`);
      const { order, strength } = rankPositive(scores, ids, kept);
      const expected = fullSort(scores, ids, kept);
      expect([...order], `n ${n}, kept ${kept}`).to.deep.equal(expected);
      if (expected.length > 0) expect(strength[0]).to.equal(1);
      expect([...strength]).to.deep.equal(
        expected.map((i) => Math.fround(scores[i] / scores[expected[0]])),
      );
    }
  });

  it("scores a user in the model's reused buffer: a second user's ranking is not affected by the first", () => {
    const model = new ItemModel(
      trainModel(buildTrainingSet(baskets, 0), { ...TEST_CONFIG.training, algorithm: 'ease' }, 1),
    );
    const first = model.rankUser(new Map([['A', 1]]), 10);
    const second = model.rankUser(new Map([['C', 1]]), 10);
    expect([...model.rankUser(new Map([['A', 1]]), 10).order]).to.deep.equal([...first.order]);
    const scores = model.scoreUser(new Map([['C', 1]]));
    expect([...second.order]).to.deep.equal(fullSort([...scores], model.data.itemIds, 10));
  });

  it('leaves the excluded items (what the user owns) out of the kept head, the rest in the same order', () => {
    const model = new ItemModel(
      trainModel(buildTrainingSet(baskets, 0), { ...TEST_CONFIG.training, algorithm: 'ease' }, 1),
    );
    const profile = new Map([['A', 1]]);
    const all = [...model.rankUser(profile, 10).order].map((i) => model.itemId(i));
    expect(all.length).to.be.greaterThan(1);
    const owned = [all[0]!];
    const kept = [...model.rankUser(profile, 10, owned).order].map((i) => model.itemId(i));
    expect(kept).to.deep.equal(all.filter((id) => !owned.includes(id)));
    // The buffer is reused: the exclusion does not stick to the next user's ranking.
    expect([...model.rankUser(profile, 10).order].map((i) => model.itemId(i))).to.deep.equal(all);
  });
});
