import { expect } from 'chai';
import { InMemoryAnswerStore } from '../src/adapters/answer-store';
import { createInMemorySharedState } from '../src/adapters/in-memory-shared-state';
import { BoundedMap } from '../src/memory/bounded-map';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('bounded in-memory stores (issue 24, item 5)', () => {
  it('BoundedMap keeps at most maxEntries, dropping the oldest write first; a rewrite is the newest', () => {
    const map = new BoundedMap<number>(3);
    for (const key of ['a', 'b', 'c']) map.set(key, 1);
    map.set('a', 2); // now the newest
    map.set('d', 1);
    expect(map.size).to.equal(3);
    expect(map.get('b')).to.equal(undefined);
    expect([map.get('a'), map.get('c'), map.get('d')]).to.deep.equal([2, 1, 1]);
    expect(map.evicted).to.equal(1);
  });

  it('BoundedMap drops expired entries before it has to evict', async () => {
    const map = new BoundedMap<string>(3);
    map.set('short', 'x', Date.now() + 20);
    map.set('long', 'y', Date.now() + 60_000);
    await sleep(30);
    expect(map.get('short')).to.equal(undefined);
    map.set('c', 'z');
    map.set('d', 'w');
    expect(map.size).to.equal(3);
    expect(map.evicted).to.equal(0);
  });

  it('the in-memory idempotency records are bounded: the oldest key is forgotten first', async () => {
    const { idempotencyKeys } = createInMemorySharedState({ maxIdempotencyKeys: 2 });
    for (const key of ['k1', 'k2', 'k3']) await idempotencyKeys.remember(key, key, 3600);
    expect(await idempotencyKeys.remember('k1', 'again', 3600), 'k1 was forgotten').to.equal(
      undefined,
    );
    expect(await idempotencyKeys.remember('k3', 'again', 3600)).to.equal('k3');
  });

  it('the in-memory answer store is bounded: the oldest answer goes first', async () => {
    const answers = new InMemoryAnswerStore(2);
    for (const key of ['a', 'b', 'c']) await answers.put('org', key, `answer ${key}`, 3600);
    expect(await answers.get('org', 'a')).to.equal(undefined);
    expect(await answers.get('org', 'c')).to.equal('answer c');
    expect(await answers.put('org', 'b', 'other', 3600), 'the first answer wins').to.equal(
      'answer b',
    );
  });
});
