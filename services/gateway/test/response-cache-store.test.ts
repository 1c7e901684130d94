import { expect } from 'chai';
import { connectRedis } from '@switchyard/shared';
import { contractSuite, endpointOf, silentLogger, uniqueName } from '@switchyard/shared/testing';
import { InMemoryResponseCacheStore } from '../src/store/response-cache/memory';
import {
  VECTORS_PER_PARTITION,
  type CachedAnswer,
  type ResponseCacheStore,
} from '../src/store/response-cache/port';
import { RedisResponseCacheStore } from '../src/store/response-cache/redis';

const answer = (text: string, storedAt = 1_000): CachedAnswer => ({
  storedAt,
  answer: JSON.stringify({ text }),
  spent: { model: 'fake-gpt', tokensInput: 30, tokensOutput: 12, cost: 0.000042 },
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

contractSuite<ResponseCacheStore>(
  'ResponseCacheStore',
  {
    memory: {
      create: async () => new InMemoryResponseCacheStore({ maxEntries: 100, maxBytes: 1 << 20 }),
      destroy: (store) => store.close(),
    },
    redis: {
      create: async () =>
        new RedisResponseCacheStore(
          await connectRedis(endpointOf('redis')!, silentLogger()),
          `${uniqueName('gw_cache')}:`,
          silentLogger(),
          true,
        ),
      destroy: (store) => store.close(),
    },
  },
  (subject) => {
    it('gives back what was stored under a key, and nothing for another key', async () => {
      await subject().set('cache:acme:a', answer('one'), 60);
      expect(await subject().get('cache:acme:a')).to.deep.equal(answer('one'));
      expect(await subject().get('cache:acme:b')).to.equal(undefined);
      expect(await subject().get('cache:other:a')).to.equal(undefined);
    });

    it('replaces an answer stored again under its key', async () => {
      await subject().set('k', answer('first'), 60);
      await subject().set('k', answer('second', 2_000), 60);
      expect(await subject().get('k')).to.deep.equal(answer('second', 2_000));
    });

    it('keeps the vectors of a partition, newest first, the values exact, apart from other partitions', async () => {
      const v = (...values: number[]) => Float32Array.from(values);
      await subject().addVector('p1', { key: 'k1', vector: v(0.1, 0.2, -0.3) }, 60);
      await subject().addVector('p1', { key: 'k2', vector: v(1, 0, 0.5) }, 60);
      await subject().addVector('p2', { key: 'k3', vector: v(0, 0, 1) }, 60);
      expect(await subject().vectors('p1')).to.deep.equal([
        { key: 'k2', vector: v(1, 0, 0.5) },
        { key: 'k1', vector: v(0.1, 0.2, -0.3) },
      ]);
      expect((await subject().vectors('p2')).map((e) => e.key)).to.deep.equal(['k3']);
      expect(await subject().vectors('none')).to.deep.equal([]);
    });

    it('keeps the newest VECTORS_PER_PARTITION vectors of a partition', async () => {
      for (let i = 0; i < VECTORS_PER_PARTITION + 5; i++)
        await subject().addVector('p', { key: `k${i}`, vector: Float32Array.from([i]) }, 60);
      const kept = await subject().vectors('p');
      expect(kept).to.have.length(VECTORS_PER_PARTITION);
      expect(kept[0]!.key).to.equal(`k${VECTORS_PER_PARTITION + 4}`);
    });

    it('drops an answer after its TTL', async function () {
      this.timeout(5000);
      await subject().set('short', answer('soon gone'), 1);
      expect(await subject().get('short')).to.deep.equal(answer('soon gone'));
      await sleep(1100);
      expect(await subject().get('short')).to.equal(undefined);
    });
  },
);

describe('InMemoryResponseCacheStore bounds', () => {
  it('evicts the least recently used answer beyond maxEntries', async () => {
    const store = new InMemoryResponseCacheStore({ maxEntries: 2, maxBytes: 1 << 20 });
    await store.set('a', answer('a'), 60);
    await store.set('b', answer('b'), 60);
    await store.get('a'); // a is now more recently used than b
    await store.set('c', answer('c'), 60);
    expect(await store.get('b')).to.equal(undefined);
    expect(await store.get('a')).to.deep.equal(answer('a'));
    expect(await store.get('c')).to.deep.equal(answer('c'));
  });

  it('keeps the answers within maxBytes, and never one larger than all of it', async () => {
    const store = new InMemoryResponseCacheStore({ maxEntries: 1000, maxBytes: 10_000 });
    const text = 'x'.repeat(1000); // about 2.2 kB each in memory
    for (let i = 0; i < 10; i++) await store.set(`k${i}`, answer(text), 60);
    expect(store.size).to.be.within(1, 4);
    expect(await store.get('k9')).to.not.equal(undefined);
    await store.set('huge', answer('y'.repeat(20_000)), 60);
    expect(await store.get('huge')).to.equal(undefined);
  });
});
