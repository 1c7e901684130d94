import { expect } from 'chai';
import { CooccurrenceModel } from '../src/model/cooccurrence-model';
import { ModelRegistry } from '../src/model/model-registry';
import type { InteractionType, UserInteraction } from '../src/model/types';
import { InMemoryInteractionStore } from '../src/store/interaction-store';

let clock = 0;
function event(userId: string, itemId: string, type: InteractionType, value = 0, timestamp = ++clock): UserInteraction {
  return { userId, itemId, type, value, timestamp };
}

function modelOf(events: UserInteraction[]): CooccurrenceModel {
  const model = new CooccurrenceModel();
  for (const e of events) model.apply(e);
  return model;
}

describe('CooccurrenceModel', () => {
  const baskets = [
    event('u1', 'A', 'purchase'),
    event('u1', 'B', 'purchase'),
    event('u2', 'A', 'purchase'),
    event('u2', 'B', 'purchase'),
    event('u3', 'A', 'purchase'),
    event('u3', 'C', 'purchase'),
  ];

  it('computes cosine similarity over users: co-count / sqrt(holders_i * holders_j)', () => {
    const model = modelOf(baskets);
    expect(model.similarity('A', 'B')).to.be.closeTo(2 / Math.sqrt(3 * 2), 1e-12);
    expect(model.similarity('A', 'C')).to.be.closeTo(1 / Math.sqrt(3 * 1), 1e-12);
    expect(model.similarity('B', 'C')).to.equal(0);
    expect(model.similarity('B', 'A')).to.equal(model.similarity('A', 'B'));
    expect(model.stats()).to.include({ users: 3, items: 3, pairs: 2, interactions: 6 });
  });

  it('ranks B first for a user who bought A (users who bought A mostly also bought B)', () => {
    const model = modelOf([...baskets, event('alice', 'A', 'purchase')]);
    const scores = model.personalScores('alice');
    expect(scores.get('B')).to.be.greaterThan(scores.get('C') ?? 0);
    // alice's own A gets no score from itself (no self co-occurrence).
    expect(scores.has('A')).to.equal(false);
    expect(model.userSummary('alice')).to.deep.equal({ known: true, owned: new Set(['A']) });
  });

  it('is incremental: the same interactions in any order give the same model', () => {
    const shuffled = [...baskets].reverse();
    const a = modelOf(baskets);
    const b = modelOf(shuffled);
    for (const [x, y] of [['A', 'B'], ['A', 'C'], ['B', 'C']]) expect(a.similarity(x, y)).to.equal(b.similarity(x, y));
    expect(a.popularItems()).to.deep.equal(b.popularItems());
  });

  it('weights interaction types and sums popularity per item', () => {
    const model = modelOf([
      event('u1', 'X', 'view'),
      event('u1', 'X', 'click'),
      event('u2', 'Y', 'cart'),
      event('u3', 'Z', 'enroll'),
      event('u4', 'Z', 'rating', 5),
    ]);
    expect(model.popularityOf('X')).to.equal(2.5);
    expect(model.popularityOf('Y')).to.equal(3);
    expect(model.popularityOf('Z')).to.equal(5 + 3);
    expect(model.popularItems()).to.deep.equal(['Z', 'Y', 'X']);
  });

  it('takes a new rating back out of popularity but keeps the co-occurrence (the items still went together)', () => {
    const model = modelOf([event('u1', 'A', 'rating', 5), event('u1', 'B', 'rating', 4)]);
    expect(model.similarity('A', 'B')).to.equal(1);
    expect(model.popularityOf('B')).to.equal(1.5);
    model.apply(event('u1', 'B', 'rating', 1));
    expect(model.similarity('A', 'B')).to.equal(1);
    expect(model.popularityOf('B')).to.equal(0);
    expect(model.popularItems()).to.deep.equal(['A']);
    expect(model.stats()).to.include({ pairs: 1, interactions: 3 });
  });

  it('counts a pair once per user, however often the user interacts', () => {
    const model = modelOf([event('u1', 'A', 'view'), event('u1', 'B', 'view'), event('u1', 'B', 'click'), event('u2', 'A', 'view')]);
    expect(model.similarity('A', 'B')).to.be.closeTo(1 / Math.sqrt(2 * 1), 1e-12);
  });

  it('keeps the newest rating when ratings arrive out of order', () => {
    const model = modelOf([event('u1', 'A', 'rating', 5, 2000), event('u1', 'A', 'rating', 1, 1000)]);
    expect(model.popularityOf('A')).to.equal(3);
  });

  it('scores a user item only through its most similar neighbours', () => {
    const events = [...baskets, event('alice', 'A', 'purchase')];
    const narrow = new CooccurrenceModel(1);
    for (const e of events) narrow.apply(e);
    expect([...narrow.personalScores('alice').keys()]).to.deep.equal(['B']);
    expect([...modelOf(events).personalScores('alice').keys()].sort()).to.deep.equal(['B', 'C']);
  });

  it('lowers the score of items similar to what the user disliked', () => {
    const others = [
      event('u1', 'Horror1', 'purchase'),
      event('u1', 'Horror2', 'purchase'),
      event('u2', 'Comedy1', 'purchase'),
      event('u2', 'Comedy2', 'purchase'),
    ];
    const model = modelOf([...others, event('bob', 'Comedy1', 'purchase'), event('bob', 'Horror1', 'rating', 1)]);
    const scores = model.personalScores('bob');
    expect(scores.get('Comedy2')).to.be.greaterThan(0);
    expect(scores.get('Horror2')).to.be.lessThan(0);
  });

  it('is rebuilt identically from the interaction store, per organization', async () => {
    const store = new InMemoryInteractionStore();
    await store.append('org_a', baskets);
    await store.append('org_b', [event('z1', 'P', 'view'), event('z1', 'Q', 'view')]);
    const registry = new ModelRegistry();
    expect(await registry.rebuildFrom(store)).to.equal(baskets.length + 2);
    expect(registry.forOrganization('org_a').similarity('A', 'B')).to.equal(modelOf(baskets).similarity('A', 'B'));
    expect(registry.forOrganization('org_a').similarity('P', 'Q')).to.equal(0);
    expect(registry.forOrganization('org_b').similarity('P', 'Q')).to.equal(1);
  });
});
