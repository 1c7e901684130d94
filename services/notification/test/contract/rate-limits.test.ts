import { contractSuite, type BackendFixture } from '@switchyard/shared/testing';
import { InMemoryRateLimits, RedisRateLimits, type RateLimits } from '../../src/store';
import { expect } from '../chai';
import { redisFixture } from '../store-fixtures';

interface LimitsWorld {
  limits: RateLimits;
  /** Another replica's view of the same slots. */
  other: RateLimits;
  dispose(): Promise<void>;
}

const memoryWorld: BackendFixture<LimitsWorld> = {
  async create() {
    const limits = new InMemoryRateLimits();
    return { limits, other: limits, dispose: async () => {} };
  },
};

const redisWorld: BackendFixture<LimitsWorld> = {
  async create() {
    const redis = redisFixture('rate');
    const open = async () => new RedisRateLimits(await redis.connect(), redis.prefix);
    return { limits: await open(), other: await open(), dispose: redis.dispose };
  },
  destroy: (world) => world.dispose(),
};

const T0 = Date.UTC(2026, 0, 1);

contractSuite<LimitsWorld>(
  'RateLimits contract',
  { memory: memoryWorld, redis: redisWorld },
  (world) => {
    it('spaces sends evenly: one now, the next ones reserved a slot apart, across replicas', async () => {
      const { limits, other } = world();
      expect(await limits.take('wh_a', 'd1', 10, T0)).to.equal(0);
      expect(await other.take('wh_a', 'd2', 10, T0)).to.equal(T0 + 100);
      expect(await limits.take('wh_a', 'd3', 10, T0 + 10)).to.equal(T0 + 200);
      // Another webhook has slots of its own.
      expect(await other.take('wh_b', 'd1', 10, T0 + 10)).to.equal(0);
    });

    it('keeps a reservation: taken early it is the same slot, at its time it goes (on any replica)', async () => {
      const { limits, other } = world();
      await limits.take('wh_a', 'd1', 2, T0);
      expect(await limits.take('wh_a', 'd2', 2, T0)).to.equal(T0 + 500);
      expect(await other.take('wh_a', 'd2', 2, T0 + 100)).to.equal(T0 + 500);
      expect(await other.take('wh_a', 'd2', 2, T0 + 500)).to.equal(0);
      // Used up: the next delivery gets the slot after it.
      expect(await limits.take('wh_a', 'd3', 2, T0 + 500)).to.equal(T0 + 1000);
    });

    it('never lets more than the limit go in any second, the waiting ones taking turns on both replicas', async () => {
      const { limits, other } = world();
      const sent: number[] = [];
      const waiting = new Map<string, number>();
      for (let now = T0; now < T0 + 6000; now += 20) {
        if (now < T0 + 500) waiting.set(`d${now}`, now);
        for (const [id, due] of [...waiting]) {
          if (due > now) continue;
          const slot = await (sent.length % 2 ? other : limits).take('wh_a', id, 5, now);
          if (slot === 0) {
            sent.push(now);
            waiting.delete(id);
          } else waiting.set(id, slot);
        }
      }
      expect(sent).to.have.length(25);
      for (let i = 5; i < sent.length; i++) expect(sent[i]! - sent[i - 5]!).to.be.at.least(1000);
    });
  },
);
