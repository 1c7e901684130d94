import { expect } from 'chai';
import { MongoAnswerStore } from '../src/adapters/answer-mongo-store';
import { InMemoryAnswerStore, usageEventId, type AnswerStore } from '../src/adapters/answer-store';
import { contractSuite } from '../src/testing';
import { memoryWorld, mongoWorld, type StoreWorld } from './store-worlds';

const memory = memoryWorld<AnswerStore>(() => new InMemoryAnswerStore());
const mongo = mongoWorld('answers_test', (db) => new MongoAnswerStore(db));

contractSuite<StoreWorld<AnswerStore>>('AnswerStore contract', { memory, mongo }, (world) => {
  it('keeps a finished answer for a retry, also across a restart', async () => {
    expect(await world().store.get('org_a', 'Generate:key:k1')).to.equal(undefined);
    expect(await world().store.put('org_a', 'Generate:key:k1', '{"content":"one"}', 60)).to.equal(
      '{"content":"one"}',
    );
    expect(await world().store.get('org_a', 'Generate:key:k1')).to.equal('{"content":"one"}');
    const reopened = await world().reopen();
    expect(await reopened.get('org_a', 'Generate:key:k1')).to.equal('{"content":"one"}');
  });

  it('keeps the first answer when two attempts finish: both get the same back', async () => {
    const [first, second] = await Promise.all([
      world().store.put('org_a', 'Generate:key:race', '{"n":1}', 60),
      world().store.put('org_a', 'Generate:key:race', '{"n":2}', 60),
    ]);
    expect(first).to.equal(second);
    expect(await world().store.get('org_a', 'Generate:key:race')).to.equal(first);
  });

  it('keeps organizations and keys apart', async () => {
    await world().store.put('org_a', 'Generate:key:same', 'a', 60);
    expect(await world().store.get('org_b', 'Generate:key:same')).to.equal(undefined);
    expect(await world().store.get('org_a', 'Transform:key:same')).to.equal(undefined);
  });

  it('forgets an answer after its window; a new answer then takes its place', async () => {
    await world().store.put('org_a', 'Generate:key:short', 'old', 1);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect(await world().store.get('org_a', 'Generate:key:short')).to.equal(undefined);
    expect(await world().store.put('org_a', 'Generate:key:short', 'new', 60)).to.equal('new');
    expect(await world().store.get('org_a', 'Generate:key:short')).to.equal('new');
  });
});

describe('usageEventId', () => {
  it('is the same for the same organization and key, and differs otherwise', () => {
    expect(usageEventId('org_a', 'Generate:key:k')).to.equal(
      usageEventId('org_a', 'Generate:key:k'),
    );
    expect(usageEventId('org_a', 'Generate:key:k')).to.not.equal(
      usageEventId('org_b', 'Generate:key:k'),
    );
    expect(usageEventId('org_a', 'Generate:key:k')).to.match(/^evt_usage_[A-Za-z0-9_-]{43}$/);
  });
});
