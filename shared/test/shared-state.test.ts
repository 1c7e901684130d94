import { expect } from 'chai';
import { Redis } from 'ioredis';
import { createInMemorySharedState } from '../src/adapters/in-memory-shared-state';
import { createRedisSharedState } from '../src/adapters/redis-shared-state';
import type { SharedState } from '../src/adapters/shared-state';
import { contractSuite, endpointOf, silentLogger, uniqueName } from '../src/testing';
import { connectRedis } from '../src/adapters/redis';

interface Subject {
  state: SharedState;
  /** A second instance on the same backend (another replica). */
  replica: SharedState;
  redis?: Redis;
  prefix: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function deleteByPrefix(redis: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
    if (keys.length > 0) await redis.del(...keys);
    cursor = next;
  } while (cursor !== '0');
}

contractSuite<Subject>(
  'SharedState',
  {
    memory: {
      async create() {
        const state = createInMemorySharedState();
        return { state, replica: state, prefix: '' };
      },
    },
    redis: {
      async create() {
        const redis = await connectRedis(endpointOf('redis')!, silentLogger());
        const prefix = `${uniqueName('test_shared_state')}:`;
        return {
          state: createRedisSharedState(redis, { prefix }),
          replica: createRedisSharedState(redis.duplicate(), { prefix, ownsConnection: true }),
          redis,
          prefix,
        };
      },
      async destroy(subject) {
        await deleteByPrefix(subject.redis!, subject.prefix);
        await subject.replica.close();
        await subject.redis!.quit();
      },
    },
  },
  (subject) => {
    describe('counters', () => {
      it('increments, reads 0 for an absent counter, and keeps counters apart', async () => {
        const { counters } = subject().state;
        expect(await counters.get('a')).to.equal(0);
        expect(await counters.incrementBy('a', 5)).to.equal(5);
        expect(await counters.incrementBy('a', -2)).to.equal(3);
        expect(await counters.get('a')).to.equal(3);
        expect(await counters.get('b')).to.equal(0);
      });

      it('is shared between replicas', async () => {
        await subject().state.counters.incrementBy('shared', 4);
        expect(await subject().replica.counters.incrementBy('shared', 1)).to.equal(5);
      });

      it('expires a counter after the TTL given when it was created', async () => {
        const { counters } = subject().state;
        await counters.incrementBy('ttl', 2, 1);
        await counters.incrementBy('ttl', 2, 100); // does not extend the window
        expect(await counters.get('ttl')).to.equal(4);
        await sleep(1200);
        expect(await counters.get('ttl')).to.equal(0);
      });

      it('rejects amounts that are not integers', async () => {
        const { counters } = subject().state;
        let error: unknown;
        await counters.incrementBy('x', 1.5).catch((e: unknown) => (error = e));
        expect(error).to.be.instanceOf(RangeError);
      });

      it('reserves only while the total stays within the limit', async () => {
        const { counters } = subject().state;
        expect(await counters.reserve('quota', 6, 10)).to.deep.equal({ granted: true, total: 6 });
        expect(await counters.reserve('quota', 5, 10)).to.deep.equal({ granted: false, total: 6 });
        expect(await counters.reserve('quota', 4, 10)).to.deep.equal({ granted: true, total: 10 });
        expect(await counters.get('quota')).to.equal(10);
      });

      it('releases without going below zero and ignores absent counters', async () => {
        const { counters } = subject().state;
        await counters.reserve('quota', 6, 10);
        expect(await counters.release('quota', 4)).to.equal(2);
        expect(await counters.release('quota', 5)).to.equal(0);
        expect(await counters.release('absent', 5)).to.equal(0);
        expect(await counters.reserve('quota', 10, 10)).to.deep.equal({ granted: true, total: 10 });
      });

      it('with onlyIfExists, refuses to create a counter (lost with Redis) until it is set again', async () => {
        const { counters } = subject().state;
        expect(await counters.reserve('lost', 5, 100, 60, { onlyIfExists: true })).to.deep.equal({
          granted: false,
          total: 0,
          missing: true,
        });
        expect(await counters.get('lost')).to.equal(0);
        expect(await counters.setIfAbsent('lost', 40, 60)).to.deep.equal({
          created: true,
          total: 40,
        });
        expect(await counters.setIfAbsent('lost', 7, 60)).to.deep.equal({
          created: false,
          total: 40,
        });
        expect(await counters.reserve('lost', 5, 100, 60, { onlyIfExists: true })).to.deep.equal({
          granted: true,
          total: 45,
        });
        expect(await counters.reserve('lost', 60, 100, 60, { onlyIfExists: true })).to.deep.equal({
          granted: false,
          total: 45,
        });
      });

      it('never grants more than the limit under 200 concurrent reservations from two replicas', async () => {
        const { state, replica } = subject();
        const calls = Array.from({ length: 200 }, (_, i) =>
          (i % 2 === 0 ? state : replica).counters.reserve('race', 3, 250),
        );
        const results = await Promise.all(calls);
        const granted = results.filter((r) => r.granted).length;
        expect(granted).to.equal(83); // floor(250 / 3)
        expect(await state.counters.get('race')).to.equal(granted * 3);
        expect(Math.max(...results.map((r) => r.total))).to.equal(249);
      });
    });

    describe('rate limiter', () => {
      it('allows up to the limit within the window, then denies with a retry time', async () => {
        const { rateLimiter } = subject().state;
        const first = await rateLimiter.slidingWindowHit('user', 1000, 3);
        expect(first.allowed).to.equal(true);
        expect(first.remaining).to.equal(2);
        expect(first.resetMs).to.be.within(1, 1000);
        await rateLimiter.slidingWindowHit('user', 1000, 3);
        expect((await rateLimiter.slidingWindowHit('user', 1000, 3)).remaining).to.equal(0);
        const denied = await rateLimiter.slidingWindowHit('user', 1000, 3);
        expect(denied).to.include({ allowed: false, remaining: 0 });
        expect(denied.resetMs).to.be.within(1, 1000);
        expect((await rateLimiter.slidingWindowHit('other', 1000, 3)).allowed).to.equal(true);
      });

      it('counts weights and lets capacity come back as hits leave the window', async () => {
        const { rateLimiter } = subject().state;
        expect((await rateLimiter.slidingWindowHit('w', 300, 10, 7)).remaining).to.equal(3);
        const denied = await rateLimiter.slidingWindowHit('w', 300, 10, 4);
        expect(denied.allowed).to.equal(false);
        expect(denied.remaining).to.equal(3);
        await sleep(denied.resetMs + 30);
        expect(await rateLimiter.slidingWindowHit('w', 300, 10, 4)).to.include({
          allowed: true,
          remaining: 6,
        });
      });

      it('enforces the limit across replicas under concurrency', async () => {
        const { state, replica } = subject();
        const hits = await Promise.all(
          Array.from({ length: 60 }, (_, i) =>
            (i % 2 === 0 ? state : replica).rateLimiter.slidingWindowHit('burst', 10_000, 25),
          ),
        );
        expect(hits.filter((h) => h.allowed)).to.have.length(25);
      });
    });

    describe('adjust', () => {
      it('adds, gives back to no less than 0, and leaves an absent counter absent when asked', async () => {
        const { counters } = subject().state;
        await counters.incrementBy('held', 10);
        expect(
          await counters.adjust([
            { key: 'held', amount: -4 },
            { key: 'fresh', amount: 7, ttlSeconds: 60 },
            { key: 'lost', amount: 5, onlyIfExists: true },
            { key: 'gone', amount: -5 },
          ]),
        ).to.deep.equal([6, 7, 0, 0]);
        expect(await counters.adjust([{ key: 'held', amount: -100 }])).to.deep.equal([0]);
        expect(await counters.get('lost')).to.equal(0);
        expect((await counters.reserve('lost', 1, 10, 0, { onlyIfExists: true })).missing).to.equal(
          true,
        );
        expect(await counters.get('fresh')).to.equal(7);
      });
    });

    describe('admit', () => {
      const window = (key: string, limit: number, weight = 1) => ({
        key,
        windowMs: 10_000,
        limit,
        weight,
      });

      it('counts the hits and makes every reservation, or none when one does not fit', async () => {
        const { state } = subject();
        const admission = {
          hits: [window('{o}:req', 10), window('{o}:tok', 100, 30)],
          reservations: [
            { key: '{o}:budget', amount: 30, limit: 50, ttlSeconds: 60 },
            { key: '{o}:quota', amount: 30, limit: 1000 },
          ],
        };
        const first = await state.admit(admission);
        expect(first.hits.map((h) => [h.allowed, h.remaining])).to.deep.equal([
          [true, 9],
          [true, 70],
        ]);
        expect(first.reservations).to.deep.equal([
          { granted: true, total: 30 },
          { granted: true, total: 30 },
        ]);
        // The budget does not fit a second time: neither reservation is made; the hits count.
        const second = await state.admit(admission);
        expect(second.hits.map((h) => h.remaining)).to.deep.equal([8, 40]);
        expect(second.reservations).to.deep.equal([
          { granted: false, total: 30 },
          { granted: false, total: 30 },
        ]);
        expect(await state.counters.get('{o}:quota')).to.equal(30);
      });

      it('stops at the first refused hit, and reports a counter that must exist but does not', async () => {
        const { state } = subject();
        const refused = await state.admit({
          hits: [window('{p}:req', 1, 2), window('{p}:tok', 100)],
          reservations: [{ key: '{p}:quota', amount: 1, limit: 10 }],
        });
        expect(refused.hits).to.have.length(1);
        expect(refused.hits[0]!.allowed).to.equal(false);
        expect(refused.reservations).to.deep.equal([]);
        expect(await state.counters.get('{p}:quota')).to.equal(0);
        const missing = await state.admit({
          hits: [],
          reservations: [
            { key: '{p}:budget', amount: 1, limit: 10 },
            { key: '{p}:quota', amount: 1, limit: 10, onlyIfExists: true },
          ],
        });
        expect(missing.reservations).to.deep.equal([
          { granted: false, total: 0 },
          { granted: false, total: 0, missing: true },
        ]);
        expect(await state.counters.get('{p}:budget')).to.equal(0);
      });

      it('shares its windows with slidingWindowHit on the same key', async () => {
        const { state } = subject();
        await state.rateLimiter.slidingWindowHit('{q}:req', 10_000, 3);
        const admitted = await state.admit({ hits: [window('{q}:req', 3)], reservations: [] });
        expect(admitted.hits[0]!.remaining).to.equal(1);
      });

      it('never grants more than the limit under 200 concurrent admissions from two replicas', async () => {
        const { state, replica } = subject();
        const results = await Promise.all(
          Array.from({ length: 200 }, (_, i) =>
            (i % 2 === 0 ? state : replica).admit({
              hits: [window('{r}:tok', 1_000_000, 3)],
              reservations: [
                { key: '{r}:team', amount: 3, limit: 250 },
                { key: '{r}:quota', amount: 3, limit: 1000 },
              ],
            }),
          ),
        );
        const granted = results.filter((r) => r.reservations[0]!.granted).length;
        expect(granted).to.equal(83); // floor(250 / 3)
        expect(await state.counters.get('{r}:team')).to.equal(granted * 3);
        expect(await state.counters.get('{r}:quota')).to.equal(granted * 3);
      });
    });

    describe('locks', () => {
      it('gives a lock to one holder at a time and releases only with its token', async () => {
        const { state, replica } = subject();
        const token = await state.locks.acquire('job', 5000);
        expect(token).to.be.a('string');
        expect(await replica.locks.acquire('job', 5000)).to.equal(undefined);
        expect(await replica.locks.release('job', 'not-the-token')).to.equal(false);
        expect(await state.locks.release('job', token!)).to.equal(true);
        expect(await state.locks.release('job', token!)).to.equal(false);
        expect(await replica.locks.acquire('job', 5000)).to.be.a('string');
      });

      it('expires a lock whose holder never released it; the stale token cannot release the new holding', async () => {
        const { state, replica } = subject();
        const stale = await state.locks.acquire('job', 100);
        await sleep(150);
        const fresh = await replica.locks.acquire('job', 5000);
        expect(fresh).to.be.a('string');
        expect(await state.locks.release('job', stale!)).to.equal(false);
        expect(await state.locks.acquire('job', 5000)).to.equal(undefined);
      });

      it('extends a lock only for its holder, so a long task keeps it past the first TTL', async () => {
        const { state, replica } = subject();
        // A first TTL the two calls before the extension fit in on a loaded machine.
        const acquiredAt = Date.now();
        const token = await state.locks.acquire('long', 1000);
        expect(await replica.locks.extend('long', 'not-the-token', 5000)).to.equal(false);
        expect(await state.locks.extend('long', token!, 5000)).to.equal(true);
        await sleep(Math.max(0, acquiredAt + 1100 - Date.now())); // past the first TTL
        expect(await replica.locks.acquire('long', 5000)).to.equal(undefined);
        expect(await state.locks.release('long', token!)).to.equal(true);
        expect(await state.locks.extend('long', token!, 5000)).to.equal(false);
      });

      it('grants exactly one of many concurrent acquisitions', async () => {
        const { state, replica } = subject();
        const tokens = await Promise.all(
          Array.from({ length: 50 }, (_, i) =>
            (i % 2 ? state : replica).locks.acquire('once', 5000),
          ),
        );
        expect(tokens.filter((t) => t !== undefined)).to.have.length(1);
      });
    });

    describe('idempotency keys', () => {
      it('stores the first value and returns it to later callers', async () => {
        const { state, replica } = subject();
        expect(await state.idempotencyKeys.remember('k', 'first', 60)).to.equal(undefined);
        expect(await replica.idempotencyKeys.remember('k', 'second', 60)).to.equal('first');
        await state.idempotencyKeys.forget('k');
        expect(await replica.idempotencyKeys.remember('k', 'second', 60)).to.equal(undefined);
      });

      it('forgets a key after its TTL', async () => {
        const { idempotencyKeys } = subject().state;
        await idempotencyKeys.remember('short', 'v1', 1);
        await sleep(1200);
        expect(await idempotencyKeys.remember('short', 'v2', 1)).to.equal(undefined);
      });

      it('lets exactly one of many concurrent callers store its value', async () => {
        const { state, replica } = subject();
        const results = await Promise.all(
          Array.from({ length: 40 }, (_, i) =>
            (i % 2 ? state : replica).idempotencyKeys.remember('race', `v${i}`, 60),
          ),
        );
        const stored = results.filter((r) => r === undefined);
        expect(stored).to.have.length(1);
        const winner = `v${results.indexOf(undefined)}`;
        expect(results.filter((r) => r !== undefined).every((r) => r === winner)).to.equal(true);
      });
    });
  },
);
