import { contractSuite, type BackendFixture } from '@switchyard/shared/testing';
import { InMemoryDueQueue, RedisDueQueue, type DueQueue, type HostRoom } from '../../src/store';
import { expect } from '../chai';
import { redisFixture } from '../store-fixtures';

interface QueueWorld {
  queue: DueQueue;
  /** Another replica's queue over the same state. */
  other: DueQueue;
  /** Loses what the queue holds (a Redis restarted without its data). */
  lose(): Promise<void>;
  dispose(): Promise<void>;
}

const memoryWorld: BackendFixture<QueueWorld> = {
  async create() {
    let queue = new InMemoryDueQueue();
    const world: QueueWorld = {
      queue,
      other: queue,
      lose: async () => {
        queue = new InMemoryDueQueue();
        world.queue = queue;
        world.other = queue;
      },
      dispose: async () => {},
    };
    return world;
  },
};

const redisWorld: BackendFixture<QueueWorld> = {
  async create() {
    const redis = redisFixture('due');
    const open = async () => new RedisDueQueue(await redis.connect(), redis.prefix);
    return { queue: await open(), other: await open(), lose: redis.clear, dispose: redis.dispose };
  },
  destroy: (world) => world.dispose(),
};

const ANY: HostRoom = { hosts: new Map(), other: 1000 };
const T0 = Date.UTC(2026, 0, 1);
/** Delivery `id` of lane `name` (one host), due at dueAt. */
const lane = (id: string, name: string, dueAt = T0) => ({ id, host: 'h1', dueAt, lane: name });

contractSuite<QueueWorld>(
  'DueQueue contract',
  { memory: memoryWorld, redis: redisWorld },
  (world) => {
    const claim = (queue: DueQueue, now: number, room = ANY, limit = 100, lease = now + 30_000) =>
      queue.claim({ now, limit, leaseUntil: lease, room, postponeUntil: now + 250 });

    it('claims what is due, earliest first, and not again under a live lease', async () => {
      const { queue, other } = world();
      await queue.schedule([
        { id: 'dlv_b', host: 'h1', dueAt: T0 + 20 },
        { id: 'dlv_a', host: 'h1', dueAt: T0 + 10 },
        { id: 'dlv_later', host: 'h1', dueAt: T0 + 5000 },
      ]);
      const { claimed } = await claim(queue, T0 + 100);
      expect(claimed.map((c) => c.id)).to.deep.equal(['dlv_a', 'dlv_b']);
      expect(claimed[0]).to.deep.equal({ id: 'dlv_a', host: 'h1', lease: T0 + 30_100 });
      expect((await claim(other, T0 + 200)).claimed).to.deep.equal([]);
      expect(await queue.size()).to.equal(3);
    });

    it('never hands one entry to two replicas claiming at once', async () => {
      const { queue, other } = world();
      await queue.schedule(
        Array.from({ length: 200 }, (_, i) => ({ id: `dlv_${i}`, host: `h${i % 3}`, dueAt: T0 })),
      );
      const results = await Promise.all(
        Array.from({ length: 6 }, (_, i) => claim(i % 2 ? other : queue, T0 + 1, ANY, 50)),
      );
      const ids = results.flatMap((r) => r.claimed.map((c) => c.id));
      expect(ids).to.have.length(200);
      expect(new Set(ids).size).to.equal(200);
    });

    it('hands an entry whose claimant died to another replica when the lease ends, once', async () => {
      const { queue, other } = world();
      await queue.schedule([{ id: 'dlv_1', host: 'h1', dueAt: T0 }]);
      const [first] = (await claim(queue, T0, ANY, 10, T0 + 1000)).claimed;
      expect((await claim(other, T0 + 999)).claimed).to.deep.equal([]);
      const [taken] = (await claim(other, T0 + 1000, ANY, 10, T0 + 5000)).claimed;
      expect(taken!.id).to.equal('dlv_1');
      // The first claimant's late settlement no longer holds; the second one's does.
      await queue.settle([{ ...first! }]);
      expect(await queue.size()).to.equal(1);
      await other.settle([{ ...taken!, next: T0 + 60_000 }]);
      expect((await claim(queue, T0 + 59_999)).claimed).to.deep.equal([]);
      expect((await claim(queue, T0 + 60_000)).claimed.map((c) => c.id)).to.deep.equal(['dlv_1']);
    });

    it('removes a settled entry, or makes it due again at the next attempt', async () => {
      const { queue } = world();
      await queue.schedule([
        { id: 'dlv_done', host: 'h1', dueAt: T0 },
        { id: 'dlv_retry', host: 'h1', dueAt: T0 },
      ]);
      const { claimed } = await claim(queue, T0);
      await queue.settle([
        { ...claimed.find((c) => c.id === 'dlv_done')! },
        { ...claimed.find((c) => c.id === 'dlv_retry')!, next: T0 + 5000 },
      ]);
      expect(await queue.size()).to.equal(1);
      expect((await claim(queue, T0 + 5000)).claimed.map((c) => c.id)).to.deep.equal(['dlv_retry']);
    });

    it('leaves due work of a host without room for later, and says how much', async () => {
      const { queue } = world();
      await queue.schedule([
        ...Array.from({ length: 4 }, (_, i) => ({ id: `dlv_busy${i}`, host: 'busy', dueAt: T0 })),
        { id: 'dlv_free', host: 'free', dueAt: T0 },
        { id: 'dlv_new', host: 'unknown', dueAt: T0 },
      ]);
      const room: HostRoom = {
        hosts: new Map([
          ['busy', 1],
          ['free', 5],
        ]),
        other: 1,
      };
      const { claimed, postponed } = await claim(queue, T0, room);
      expect(claimed.map((c) => c.host).sort()).to.deep.equal(['busy', 'free', 'unknown']);
      expect(postponed).to.equal(3);
      // Postponed entries are due again at postponeUntil (T0 + 250), not before.
      expect((await claim(queue, T0 + 249)).claimed).to.deep.equal([]);
      expect((await claim(queue, T0 + 250)).claimed).to.have.length(3);
    });

    it('keeps an existing entry when asked to, and moves it otherwise', async () => {
      const { queue } = world();
      await queue.schedule([{ id: 'dlv_1', host: 'h1', dueAt: T0 + 1000 }]);
      await queue.schedule([{ id: 'dlv_1', host: 'h1', dueAt: T0 }], { keepExisting: true });
      expect((await claim(queue, T0)).claimed).to.deep.equal([]);
      await queue.schedule([{ id: 'dlv_1', host: 'h1', dueAt: T0 }]);
      expect((await claim(queue, T0)).claimed).to.have.length(1);
    });

    it('says it is incomplete until rebuilt, and again once lost; one replica rebuilds at a time', async () => {
      const w = world();
      expect(await w.queue.complete()).to.equal(false);
      expect(await w.queue.startRebuild(10_000)).to.equal(true);
      expect(await w.other.startRebuild(10_000)).to.equal(false);
      await w.queue.finishRebuild();
      expect(await w.queue.complete()).to.equal(true);
      expect(await w.other.complete()).to.equal(true);
      await w.lose();
      expect(await w.queue.complete()).to.equal(false);
      expect(await w.queue.startRebuild(10_000)).to.equal(true);
    });

    it('puts only the head of each lane in the queue; the next falls due when it is done', async () => {
      const { queue, other } = world();
      const heads = await queue.appendToLanes([
        lane('a1', 'wh_1 k1'),
        lane('a2', 'wh_1 k1'),
        lane('b1', 'wh_1 k2'),
      ]);
      expect(heads).to.deep.equal(['a1', 'b1']);
      expect(
        await other.appendToLanes([lane('a3', 'wh_1 k1'), lane('a2', 'wh_1 k1')]),
      ).to.deep.equal([]);
      const first = await claim(queue, T0 + 1);
      expect(first.claimed.map((c) => c.id).sort()).to.deep.equal(['a1', 'b1']);
      // Not done yet: a retry keeps a1 at the head, nothing else falls due.
      await queue.settle([{ ...first.claimed.find((c) => c.id === 'a1')!, next: T0 + 50 }]);
      expect((await claim(other, T0 + 10)).claimed).to.deep.equal([]);
      const retried = await claim(other, T0 + 60);
      expect(retried.claimed.map((c) => c.id)).to.deep.equal(['a1']);
      await other.settle(retried.claimed);
      await other.advanceLane('wh_1 k1', 'a1', T0 + 70);
      const second = await claim(queue, T0 + 70);
      expect(second.claimed.map((c) => c.id)).to.deep.equal(['a2']);
      // A delivery further back that ends (cancelled) just leaves its lane.
      await queue.advanceLane('wh_1 k1', 'a3', T0 + 80);
      await queue.settle(second.claimed);
      await queue.advanceLane('wh_1 k1', 'a2', T0 + 90);
      expect((await claim(queue, T0 + 100)).claimed).to.deep.equal([]);
      expect(await queue.size()).to.equal(1); // b1, claimed
    });

    it('settles a claim and advances its lane in one step; the lane advances even when the lease no longer holds', async () => {
      const { queue, other } = world();
      // A head given its lease as due time is held claimed from the start.
      const lease = T0 + 1000;
      expect(
        await queue.appendToLanes([
          lane('a1', 'wh_1 k1', lease),
          lane('a2', 'wh_1 k1', lease),
          lane('a3', 'wh_1 k1', lease),
          lane('b1', 'wh_1 k2', lease),
        ]),
      ).to.deep.equal(['a1', 'b1']);
      expect((await claim(other, T0 + 10)).claimed).to.deep.equal([]);
      // a1 done, b1 retried later: one call.
      await queue.settle(
        [
          { id: 'a1', host: 'h1', lease, lane: 'wh_1 k1' },
          { id: 'b1', host: 'h1', lease, next: T0 + 500 },
        ],
        T0 + 20,
      );
      const next = await claim(other, T0 + 20);
      expect(next.claimed.map((c) => c.id)).to.deep.equal(['a2']);
      // a2 was claimed again meanwhile (its first lease ran out; b1 is due too): the stale
      // settlement leaves the queue alone, but a2 is done, so a3 falls due.
      const again = await claim(queue, next.claimed[0]!.lease + 1);
      expect(again.claimed.map((c) => c.id).sort()).to.deep.equal(['a2', 'b1']);
      const later = next.claimed[0]!.lease + 10;
      await other.settle([{ ...next.claimed[0]!, lane: 'wh_1 k1' }], later);
      expect((await claim(queue, later)).claimed.map((c) => c.id)).to.deep.equal(['a3']);
      expect(await queue.size()).to.equal(3); // a2 (its newer claim), a3, b1
    });

    it('heads only empty lanes, claimed by the caller; the rest is left out for the caller to log and append', async () => {
      const { queue, other } = world();
      await queue.appendToLanes([lane('a1', 'wh_1 k1', T0)]);
      const lease = T0 + 1000;
      // k1 has a1 waiting; k2 is empty: b1 heads it, b2 (same lane, same call) does not.
      expect(
        await other.headEmptyLanes([
          lane('a2', 'wh_1 k1', lease),
          lane('b1', 'wh_1 k2', lease),
          lane('b2', 'wh_1 k2', lease),
        ]),
      ).to.deep.equal(['b1']);
      // Held claimed until the lease: only a1 is due.
      expect((await claim(queue, T0 + 10)).claimed.map((c) => c.id)).to.deep.equal(['a1']);
      // The left-out ones, appended in order once logged, wait behind their heads.
      expect(
        await other.appendToLanes([lane('a2', 'wh_1 k1', T0), lane('b2', 'wh_1 k2', T0)]),
      ).to.deep.equal([]);
      await other.settle([{ id: 'b1', host: 'h1', lease, lane: 'wh_1 k2' }], T0 + 20);
      expect((await claim(queue, T0 + 20)).claimed.map((c) => c.id)).to.deep.equal(['b2']);
    });

    it('puts a lane head whose entry was dropped back in the queue when it is appended again', async () => {
      const { queue, other } = world();
      const lease = T0 + 1000;
      const head = { id: 'a1', host: 'h1', dueAt: lease, lane: 'wh_1 k1' };
      expect(await queue.headEmptyLanes([head])).to.deep.equal(['a1']);
      await queue.appendToLanes([{ ...head, id: 'a2' }]);
      // Its holder died before logging it; a sweep found no record and dropped its entry.
      const swept = await claim(other, lease + 1);
      expect(swept.claimed.map((c) => c.id)).to.deep.equal(['a1']);
      await other.settle(swept.claimed);
      expect(await queue.size()).to.equal(0);
      // Logged when its events were handled again: due again, still ahead of a2.
      expect(await other.appendToLanes([{ ...head, dueAt: lease + 10 }])).to.deep.equal(['a1']);
      expect((await claim(queue, lease + 20)).claimed.map((c) => c.id)).to.deep.equal(['a1']);
    });

    it('gives a held head found unlogged one more lease, then moves its lane on; other unlogged entries leave', async () => {
      const { queue, other } = world();
      const lease = T0 + 1000;
      expect(
        await queue.headEmptyLanes([lane('a1', 'wh_1 k1', lease), lane('b1', 'wh_1 k2', lease)]),
      ).to.deep.equal(['a1', 'b1']);
      await queue.appendToLanes([lane('a2', 'wh_1 k1'), lane('b2', 'wh_1 k2')]);
      await queue.schedule([{ id: 'c1', host: 'h1', dueAt: T0 }]);
      // Their holder died; a sweep finds none of them in the log.
      const first = await claim(other, lease + 1);
      expect(first.claimed.map((c) => c.id).sort()).to.deep.equal(['a1', 'b1', 'c1']);
      const retryAt = lease + 5000;
      await other.releaseUnlogged(first.claimed, retryAt, lease + 2);
      expect((await claim(other, retryAt - 1)).claimed).to.deep.equal([]);
      // b1 was logged meanwhile (its events handled again) and is done: its lane moves on.
      await other.settle([{ id: 'b1', host: 'h1', lease: retryAt, lane: 'wh_1 k2' }], retryAt);
      // a1 never is: the next claim that finds it unlogged moves its lane on.
      const second = await claim(queue, retryAt);
      expect(second.claimed.map((c) => c.id).sort()).to.deep.equal(['a1', 'b2']);
      await queue.releaseUnlogged(
        second.claimed.filter((c) => c.id === 'a1'),
        retryAt + 5000,
        retryAt + 1,
      );
      expect((await claim(queue, retryAt + 1)).claimed.map((c) => c.id)).to.deep.equal(['a2']);
      expect(await queue.size()).to.equal(2); // a2 and b2, claimed
    });
  },
);
