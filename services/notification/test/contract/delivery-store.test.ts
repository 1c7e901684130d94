import { contractSuite } from '@switchyard/shared/testing';
import type { AttemptRecord, DeliveryRecord } from '../../src/model';
import { expect } from '../chai';
import { deliveryRecord, storeBackends, type StoreWorld } from '../store-fixtures';

const SECOND = 1000;

function attempt(statusCode: number): AttemptRecord {
  return {
    attemptedAt: new Date().toISOString(),
    statusCode,
    durationMs: 5,
    responseBody: `answer ${statusCode}`,
    error: statusCode >= 300 ? `HTTP ${statusCode}` : '',
  };
}

function later(ms: number): Date {
  return new Date(Date.now() + ms);
}

contractSuite<StoreWorld>('DeliveryStore contract', storeBackends, (world) => {
  it('creates one delivery per identity, also when two instances race', async () => {
    const { deliveries } = world().stores;
    const other = (await world().reopen()).deliveries;
    const first = deliveryRecord({ eventId: 'evt_1', webhookId: 'wh_1' });
    const copies = Array.from({ length: 6 }, () => ({
      ...deliveryRecord({ eventId: 'evt_1', webhookId: 'wh_1' }),
    }));
    const results = await Promise.all([
      deliveries.createIfAbsent(first),
      ...copies.map((c, i) => (i % 2 ? deliveries : other).createIfAbsent(c)),
    ]);
    expect(results.filter((r) => r.created)).to.have.length(1);
    const ids = new Set(results.map((r) => r.delivery.id));
    expect(ids.size).to.equal(1);
    expect(await deliveries.list('org_a', { limit: 10 })).to.have.length(1);
    // A different target for the same event is a different delivery.
    expect(
      (await deliveries.createIfAbsent(deliveryRecord({ eventId: 'evt_1', webhookId: 'wh_2' })))
        .created,
    ).to.equal(true);
  });

  it('keeps organizations apart', async () => {
    const { deliveries } = world().stores;
    const delivery = deliveryRecord({ organization: 'org_a' });
    await deliveries.createIfAbsent(delivery);
    expect(await deliveries.get('org_b', delivery.id)).to.equal(undefined);
    expect(await deliveries.list('org_b', { limit: 10 })).to.deep.equal([]);
    expect(await deliveries.claim('org_b', delivery.id, new Date(), later(SECOND))).to.equal(
      undefined,
    );
    expect(
      await deliveries.recordAttempt('org_b', delivery.id, {
        attempt: attempt(200),
        status: 'succeeded',
        url: delivery.url,
      }),
    ).to.equal(undefined);
    expect((await deliveries.get('org_a', delivery.id))!.attempts).to.deep.equal([]);
  });

  it('lists newest first, by target, up to the limit', async () => {
    const { deliveries } = world().stores;
    const made = [];
    for (let i = 0; i < 4; i++) {
      const delivery = deliveryRecord({
        webhookId: i % 2 ? 'wh_odd' : 'wh_even',
        createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
      });
      await deliveries.createIfAbsent(delivery);
      made.push(delivery.id);
    }
    expect((await deliveries.list('org_a', { limit: 10 })).map((d) => d.id)).to.deep.equal(
      [...made].reverse(),
    );
    expect((await deliveries.list('org_a', { limit: 2 })).map((d) => d.id)).to.deep.equal([
      made[3],
      made[2],
    ]);
    expect(
      (await deliveries.list('org_a', { webhookId: 'wh_odd', limit: 10 })).map((d) => d.id),
    ).to.deep.equal([made[3], made[1]]);
  });

  it('lists by state and by event type, with the other filters', async () => {
    const { deliveries } = world().stores;
    const paid = deliveryRecord({ event: 'invoice_paid', status: 'failed' });
    const failedInvoice = deliveryRecord({ event: 'invoice_failed', status: 'failed' });
    const pending = deliveryRecord({ event: 'invoice_paid', webhookId: 'wh_2' });
    for (const delivery of [paid, failedInvoice, pending])
      await deliveries.createIfAbsent(delivery);
    const ids = async (filter: Parameters<typeof deliveries.list>[1]) =>
      (await deliveries.list('org_a', filter)).map((d) => d.id).sort();
    expect(await ids({ status: 'failed', limit: 10 })).to.deep.equal(
      [paid.id, failedInvoice.id].sort(),
    );
    expect(await ids({ event: 'invoice_paid', limit: 10 })).to.deep.equal(
      [paid.id, pending.id].sort(),
    );
    expect(await ids({ status: 'failed', event: 'invoice_paid', limit: 10 })).to.deep.equal([
      paid.id,
    ]);
    expect(await ids({ webhookId: 'wh_2', status: 'failed', limit: 10 })).to.deep.equal([]);
    expect(await ids({ status: 'succeeded', limit: 10 })).to.deep.equal([]);
  });

  it("lists one event's deliveries (a request's result callback and its replays)", async () => {
    const { deliveries } = world().stores;
    const callback = deliveryRecord({ webhookId: 'callback', eventId: 'evt_req_1_result' });
    const replay = deliveryRecord({
      webhookId: 'callback',
      eventId: 'evt_req_1_result',
      dedupeKey: 'replay-1',
      replayOf: callback.id,
    });
    for (const delivery of [
      callback,
      deliveryRecord({ webhookId: 'callback', eventId: 'evt_req_2_result' }),
      replay,
    ])
      await deliveries.createIfAbsent(delivery);
    const listed = await deliveries.list('org_a', {
      webhookId: 'callback',
      eventId: 'evt_req_1_result',
      limit: 10,
    });
    expect(listed.map((d) => d.id).sort()).to.deep.equal([callback.id, replay.id].sort());
    expect(
      await deliveries.list('org_b', { eventId: 'evt_req_1_result', limit: 10 }),
    ).to.deep.equal([]);
  });

  it('claims only due, pending, unclaimed deliveries', async () => {
    const { deliveries } = world().stores;
    const due = deliveryRecord();
    const notYet = deliveryRecord({ nextAttemptAt: later(60 * SECOND).toISOString() });
    const done = deliveryRecord({ status: 'succeeded', nextAttemptAt: undefined });
    for (const d of [due, notYet, done]) await deliveries.createIfAbsent(d);
    const claimed = await deliveries.claimDue(new Date(), 10, later(30 * SECOND));
    expect(claimed.map((d) => d.id)).to.deep.equal([due.id]);
    expect(Date.parse(claimed[0]!.leaseUntil!)).to.be.greaterThan(Date.now());
    expect(await deliveries.claimDue(new Date(), 10, later(30 * SECOND))).to.deep.equal([]);
    expect(await deliveries.claim('org_a', due.id, new Date(), later(30 * SECOND))).to.equal(
      undefined,
    );
    expect(await deliveries.claim('org_a', notYet.id, new Date(), later(30 * SECOND))).to.equal(
      undefined,
    );
    expect(await deliveries.countPending()).to.equal(2);
  });

  it('creates a batch at once, once per identity, and returns only the new ones', async () => {
    const { deliveries } = world().stores;
    const first = deliveryRecord({ eventId: 'evt_batch', webhookId: 'wh_1' });
    expect((await deliveries.createMany([first])).map((d) => d.id)).to.deep.equal([first.id]);
    const copy = deliveryRecord({ eventId: 'evt_batch', webhookId: 'wh_1' });
    const second = deliveryRecord({ eventId: 'evt_batch', webhookId: 'wh_2' });
    expect((await deliveries.createMany([copy, second])).map((d) => d.id)).to.deep.equal([
      second.id,
    ]);
    expect((await deliveries.list('org_a', { limit: 10 })).map((d) => d.id).sort()).to.deep.equal(
      [first.id, second.id].sort(),
    );
    // The refused copy left nothing in the schedule.
    expect(await deliveries.countPending()).to.equal(2);
  });

  it('hands a delivery created claimed to the schedule only once its lease has expired (its creator died)', async () => {
    const { deliveries } = world().stores;
    const start = new Date();
    const delivery = deliveryRecord({
      nextAttemptAt: start.toISOString(),
      leaseUntil: new Date(start.getTime() + 500).toISOString(),
    });
    await deliveries.createMany([delivery]);
    const other = (await world().reopen()).deliveries;
    expect(
      await other.claimDue(
        new Date(start.getTime() + 100),
        10,
        new Date(start.getTime() + 30 * SECOND),
      ),
    ).to.deep.equal([]);
    const [resumed] = await other.claimDue(
      new Date(start.getTime() + 600),
      10,
      new Date(start.getTime() + 30 * SECOND),
    );
    expect(resumed?.id).to.equal(delivery.id);
    expect(resumed?.attempts).to.deep.equal([]);
  });

  it('leaves due work of a host without room in the schedule, due again later', async () => {
    const { deliveries } = world().stores;
    const busy = deliveryRecord({ url: 'https://busy.example.com/hook' });
    const free = deliveryRecord({ url: 'https://free.example.com/hook' });
    await deliveries.createMany([busy, free]);
    const recheck = later(60 * SECOND);
    const skip = { host: (host: string) => host !== 'busy.example.com', until: recheck };
    expect(
      (await deliveries.claimDue(new Date(), 10, later(30 * SECOND), skip)).map((d) => d.id),
    ).to.deep.equal([free.id]);
    expect(await deliveries.claimDue(new Date(), 10, later(30 * SECOND))).to.deep.equal([]);
    const again = await deliveries.claimDue(
      new Date(recheck.getTime() + 1),
      10,
      new Date(recheck.getTime() + 30 * SECOND),
    );
    expect(again.map((d) => d.id)).to.include(busy.id);
  });

  it('never hands one attempt to two instances claiming concurrently', async () => {
    const stores = [
      world().stores.deliveries,
      (await world().reopen()).deliveries,
      (await world().reopen()).deliveries,
    ];
    const ids: string[] = [];
    for (let i = 0; i < 8; i++) {
      const delivery = deliveryRecord();
      await stores[0]!.createIfAbsent(delivery);
      ids.push(delivery.id);
    }
    const rounds = await Promise.all([
      ...stores.map((s) => s.claimDue(new Date(), 8, later(30 * SECOND))),
      ...ids.map((id, i) => stores[i % 3]!.claim('org_a', id, new Date(), later(30 * SECOND))),
    ]);
    const claimed = rounds
      .flat()
      .filter((d) => d !== undefined)
      .map((d) => d!.id);
    expect(claimed.sort()).to.deep.equal([...ids].sort());
  });

  it('claims due work in batches, each attempt by one instance, and the retries once more', async () => {
    const stores = [
      world().stores.deliveries,
      (await world().reopen()).deliveries,
      (await world().reopen()).deliveries,
    ];
    const created = Array.from({ length: 40 }, () => deliveryRecord());
    await stores[0]!.createMany(created);
    const ids = created.map((d) => d.id).sort();
    // Instances racing for the same head of the schedule: the losers' entries are due again a
    // little later, so the rounds look further ahead each time.
    let clock = Date.now();
    const claimAll = async () => {
      const claimed: DeliveryRecord[] = [];
      for (let round = 0; round < 4; round++, clock += 2 * SECOND) {
        const rounds = await Promise.all(
          [...stores, ...stores].map((s) =>
            s.claimDue(new Date(clock), 15, new Date(clock + 30 * SECOND)),
          ),
        );
        claimed.push(...rounds.flat());
      }
      return claimed;
    };
    const first = await claimAll();
    expect(first.map((d) => d.id).sort()).to.deep.equal(ids);
    expect(first.every((d) => d.attempts.length === 0 && d.leaseUntil !== undefined)).to.equal(
      true,
    );
    // Every other one fails and is due again at once; the rest succeed.
    await stores[1]!.recordAttempts(
      first.map((d, i) => ({
        organization: 'org_a',
        id: d.id,
        result:
          i % 2 === 0
            ? {
                attempt: attempt(503),
                status: 'pending' as const,
                nextAttemptAt: new Date(clock).toISOString(),
                url: d.url,
              }
            : { attempt: attempt(200), status: 'succeeded' as const, url: d.url },
      })),
    );
    const retries = await claimAll();
    expect(retries.map((d) => d.id).sort()).to.deep.equal(
      first
        .filter((_, i) => i % 2 === 0)
        .map((d) => d.id)
        .sort(),
    );
    expect(retries.every((d) => d.attempts.length === 1)).to.equal(true);
    expect(await claimAll()).to.deep.equal([]);
  });

  it('never loses a delivery whose schedule entry a sweep meets before the delivery is written', async function () {
    // Mongo only: createMany writes the schedule entry, then the delivery; memory does both at once.
    const db = world().connection?.db;
    if (!db) this.skip();
    const { deliveries } = world().stores;
    const delivery = deliveryRecord();
    const start = new Date();
    // The first of createMany's two writes, as a sweep racing it sees the schedule.
    await db!
      .collection<{ _id: string; organization: string; host: string; dueAt: string }>(
        'delivery_schedule',
      )
      .insertOne({
        _id: delivery.id,
        organization: delivery.organization,
        host: 'hooks.example.com',
        dueAt: start.toISOString(),
      });
    expect(await deliveries.claimDue(start, 10, later(30 * SECOND))).to.deep.equal([]);
    // createMany's second write, the delivery in its stored form.
    await db!
      .collection<{ _id: string } & Record<string, unknown>>('deliveries')
      .insertOne({ ...delivery, leaseUntil: '', _id: delivery.id });
    const [claimed] = await deliveries.claimDue(
      new Date(start.getTime() + 2 * SECOND),
      10,
      later(30 * SECOND),
    );
    expect(claimed?.id).to.equal(delivery.id);
  });

  it('hands a claim whose lease expired (crashed holder) to another instance, once', async () => {
    const { deliveries } = world().stores;
    const other = (await world().reopen()).deliveries;
    const third = (await world().reopen()).deliveries;
    const delivery = deliveryRecord();
    await deliveries.createIfAbsent(delivery);
    const start = new Date();
    expect(
      await deliveries.claim('org_a', delivery.id, start, new Date(start.getTime() + 500)),
    ).to.not.equal(undefined);
    const duringLease = new Date(start.getTime() + 200);
    expect(
      await other.claimDue(duringLease, 10, new Date(start.getTime() + 30 * SECOND)),
    ).to.deep.equal([]);
    const afterLease = new Date(start.getTime() + 600);
    const takeovers = await Promise.all(
      [other, third].map((s) =>
        s.claimDue(afterLease, 10, new Date(start.getTime() + 30 * SECOND)),
      ),
    );
    expect(takeovers.flat().map((d) => d.id)).to.deep.equal([delivery.id]);
  });

  it('gives a released claim back', async () => {
    const { deliveries } = world().stores;
    const delivery = deliveryRecord();
    await deliveries.createIfAbsent(delivery);
    expect(
      await deliveries.claim('org_a', delivery.id, new Date(), later(30 * SECOND)),
    ).to.not.equal(undefined);
    await deliveries.release('org_a', delivery.id);
    expect(
      (await deliveries.claimDue(new Date(), 10, later(30 * SECOND))).map((d) => d.id),
    ).to.deep.equal([delivery.id]);
  });

  it('appends attempts, moves the status on and drops the claim', async () => {
    const { deliveries } = world().stores;
    const delivery = deliveryRecord();
    await deliveries.createIfAbsent(delivery);
    await deliveries.claim('org_a', delivery.id, new Date(), later(30 * SECOND));
    const retryAt = later(-10).toISOString();
    const afterFirst = await deliveries.recordAttempt('org_a', delivery.id, {
      attempt: attempt(500),
      status: 'pending',
      nextAttemptAt: retryAt,
      url: 'https://hooks.example.com/moved',
    });
    expect(afterFirst).to.include({
      status: 'pending',
      nextAttemptAt: retryAt,
      url: 'https://hooks.example.com/moved',
    });
    expect(afterFirst!.leaseUntil).to.equal(undefined);
    // The retry is a new attempt: claimable at once when due.
    expect(
      await deliveries.claim('org_a', delivery.id, new Date(), later(30 * SECOND)),
    ).to.not.equal(undefined);
    const afterSecond = await deliveries.recordAttempt('org_a', delivery.id, {
      attempt: attempt(200),
      status: 'succeeded',
      url: 'https://hooks.example.com/moved',
    });
    expect(afterSecond!.attempts.map((a) => a.statusCode)).to.deep.equal([500, 200]);
    expect(afterSecond!.attempts[0]).to.deep.equal(
      (await deliveries.get('org_a', delivery.id))!.attempts[0],
    );
    expect(afterSecond!.nextAttemptAt).to.equal(undefined);
    expect(await deliveries.countPending()).to.equal(0);
    expect(await deliveries.claimDue(new Date(), 10, later(30 * SECOND))).to.deep.equal([]);
  });

  it('records a batch of attempts at once, each as recordAttempt would', async () => {
    const { deliveries } = world().stores;
    const start = new Date();
    const lease = new Date(start.getTime() + 30 * SECOND).toISOString();
    // Two created claimed (first attempts from an event), one claimed by a sweep.
    const succeeded = deliveryRecord({ nextAttemptAt: start.toISOString(), leaseUntil: lease });
    const retried = deliveryRecord({ nextAttemptAt: start.toISOString(), leaseUntil: lease });
    const failed = deliveryRecord();
    const otherOrganization = deliveryRecord({ organization: 'org_b' });
    await deliveries.createMany([succeeded, retried, failed, otherOrganization]);
    expect(await deliveries.claim('org_a', failed.id, new Date(), later(30 * SECOND))).to.not.equal(
      undefined,
    );
    const retryAt = later(-10).toISOString();
    await deliveries.recordAttempts([
      {
        organization: 'org_a',
        id: succeeded.id,
        result: { attempt: attempt(200), status: 'succeeded', url: succeeded.url },
      },
      {
        organization: 'org_a',
        id: retried.id,
        result: {
          attempt: attempt(503),
          status: 'pending',
          nextAttemptAt: retryAt,
          url: retried.url,
        },
      },
      {
        organization: 'org_a',
        id: failed.id,
        result: { attempt: attempt(400), status: 'failed', url: failed.url },
      },
      // Not org_a's: left as it is, and the rest of the batch is recorded.
      {
        organization: 'org_a',
        id: otherOrganization.id,
        result: { attempt: attempt(200), status: 'succeeded', url: otherOrganization.url },
      },
    ]);
    const stored = await Promise.all(
      [succeeded, retried, failed].map((d) => deliveries.get('org_a', d.id)),
    );
    expect(stored.map((d) => d!.status)).to.deep.equal(['succeeded', 'pending', 'failed']);
    expect(stored.map((d) => d!.attempts.map((a) => a.statusCode))).to.deep.equal([
      [200],
      [503],
      [400],
    ]);
    expect(stored.map((d) => d!.leaseUntil)).to.deep.equal([undefined, undefined, undefined]);
    expect(stored[1]!.nextAttemptAt).to.equal(retryAt);
    expect(stored[2]!.nextAttemptAt).to.equal(undefined);
    const untouched = await deliveries.get('org_b', otherOrganization.id);
    expect(untouched).to.include({ status: 'pending' });
    expect(untouched!.attempts).to.deep.equal([]);
    // Left in the schedule: the retry (due now, claimable at once) and org_b's delivery.
    expect(await deliveries.countPending()).to.equal(2);
    const due = await deliveries.claimDue(new Date(), 10, later(30 * SECOND));
    expect(due.map((d) => d.id).sort()).to.deep.equal([retried.id, otherOrganization.id].sort());
    expect(due.find((d) => d.id === retried.id)!.attempts).to.have.length(1);
  });

  it('hands a batch never recorded (its instance died after sending) to another instance once the leases expire', async () => {
    const { deliveries } = world().stores;
    const other = (await world().reopen()).deliveries;
    const start = new Date();
    const created = deliveryRecord({
      nextAttemptAt: start.toISOString(),
      leaseUntil: new Date(start.getTime() + 500).toISOString(),
    });
    const swept = deliveryRecord({ nextAttemptAt: start.toISOString() });
    await deliveries.createMany([created, swept]);
    expect(
      (await deliveries.claimDue(start, 10, new Date(start.getTime() + 500))).map((d) => d.id),
    ).to.deep.equal([swept.id]);
    // The first instance sent both and died before its batch was written: nothing is lost, the
    // other instance attempts both again (the receiver dedupes the repeat by webhook-id).
    expect(
      await other.claimDue(new Date(start.getTime() + 200), 10, later(30 * SECOND)),
    ).to.deep.equal([]);
    const takenOver = await other.claimDue(
      new Date(start.getTime() + 600),
      10,
      new Date(start.getTime() + 30 * SECOND),
    );
    expect(takenOver.map((d) => d.id).sort()).to.deep.equal([created.id, swept.id].sort());
    expect(takenOver.map((d) => d.attempts)).to.deep.equal([[], []]);
    await other.recordAttempts(
      takenOver.map((d) => ({
        organization: 'org_a',
        id: d.id,
        result: { attempt: attempt(200), status: 'succeeded' as const, url: d.url },
      })),
    );
    expect(await other.countPending()).to.equal(0);
    expect(
      await deliveries.claimDue(new Date(start.getTime() + 60 * SECOND), 10, later(90 * SECOND)),
    ).to.deep.equal([]);
    for (const d of [created, swept])
      expect((await deliveries.get('org_a', d.id))!.status).to.equal('succeeded');
  });

  it('is visible from a second store instance on the same database (restart)', async () => {
    const delivery = deliveryRecord();
    await world().stores.deliveries.createIfAbsent(delivery);
    await world().stores.deliveries.claim('org_a', delivery.id, new Date(), later(30 * SECOND));
    await world().stores.deliveries.recordAttempt('org_a', delivery.id, {
      attempt: attempt(503),
      status: 'pending',
      nextAttemptAt: later(-1).toISOString(),
      url: delivery.url,
    });
    const reopened = (await world().reopen()).deliveries;
    const [resumed] = await reopened.claimDue(new Date(), 10, later(30 * SECOND));
    expect(resumed!.id).to.equal(delivery.id);
    expect(resumed!.messageId).to.equal(delivery.messageId);
    expect(resumed!.attempts.map((a) => a.statusCode)).to.deep.equal([503]);
    expect(
      (
        await reopened.createIfAbsent(
          deliveryRecord({ eventId: delivery.eventId, webhookId: delivery.webhookId }),
        )
      ).created,
    ).to.equal(false);
  });
});
