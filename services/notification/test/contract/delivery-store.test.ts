import { contractSuite } from '@switchyard/shared/testing';
import type { AttemptRecord } from '../../src/model';
import { expect } from '../chai';
import { deliveryRecord, storeBackends, type StoreWorld } from '../store-fixtures';

function attempt(statusCode: number): AttemptRecord {
  return {
    attemptedAt: new Date().toISOString(),
    statusCode,
    durationMs: 5,
    responseBody: `answer ${statusCode}`,
    error: statusCode >= 300 ? `HTTP ${statusCode}` : '',
  };
}

contractSuite<StoreWorld>('DeliveryStore contract', storeBackends, (world) => {
  it('logs a delivery once per id, also when two instances write the same batch at once', async () => {
    const { deliveries } = world().stores;
    const other = (await world().reopen()).deliveries;
    const batch = [deliveryRecord(), deliveryRecord(), deliveryRecord()];
    // A replica that took over the partition handles the same events: the same ids.
    const again = batch.map((d) => ({
      ...d,
      attempts: [attempt(200)],
      status: 'succeeded' as const,
    }));
    await Promise.all([deliveries.insert(batch), other.insert(again), deliveries.insert(batch)]);
    const logged = await deliveries.list('org_a', { limit: 10 });
    expect(logged.map((d) => d.id).sort()).to.deep.equal(batch.map((d) => d.id).sort());
    // A repeat (one already logged, one new) writes only the new one and leaves the first as it was.
    const first = logged.find((d) => d.id === batch[0]!.id)!;
    const fresh = deliveryRecord();
    await deliveries.insert([{ ...batch[0]!, status: 'failed' }, fresh]);
    expect(await deliveries.get('org_a', batch[0]!.id)).to.deep.equal(first);
    expect(await deliveries.get('org_a', fresh.id)).to.deep.equal(fresh);
  });

  it('writes a batch larger than one command, all of it', async () => {
    const { deliveries } = world().stores;
    const batch = Array.from({ length: 1203 }, () => deliveryRecord());
    await deliveries.insert(batch);
    const found = await deliveries.getMany(batch.map((d) => d.id));
    expect(found).to.have.length(1203);
  });

  it('keeps organizations apart', async () => {
    const { deliveries } = world().stores;
    const delivery = deliveryRecord({ organization: 'org_a' });
    await deliveries.insert([delivery]);
    expect(await deliveries.get('org_b', delivery.id)).to.equal(undefined);
    expect(await deliveries.list('org_b', { limit: 10 })).to.deep.equal([]);
    await deliveries.recordAttempts([
      {
        organization: 'org_b',
        id: delivery.id,
        result: { attempt: attempt(200), status: 'succeeded', url: delivery.url },
      },
    ]);
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
      await deliveries.insert([delivery]);
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
    await deliveries.insert([paid, failedInvoice, pending]);
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
      replayOf: callback.id,
    });
    await deliveries.insert([
      callback,
      deliveryRecord({ webhookId: 'callback', eventId: 'evt_req_2_result' }),
      replay,
    ]);
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

  it('reads the logged deliveries among ids, of any organization', async () => {
    const { deliveries } = world().stores;
    const a = deliveryRecord();
    const b = deliveryRecord({ organization: 'org_b' });
    await deliveries.insert([a, b]);
    const found = await deliveries.getMany([a.id, 'dlv_never_logged', b.id]);
    expect(found.map((d) => d.id).sort()).to.deep.equal([a.id, b.id].sort());
    expect(found.find((d) => d.id === a.id)).to.deep.equal(a);
    expect(await deliveries.getMany([])).to.deep.equal([]);
  });

  it('appends attempts and moves the status on, a batch in one call', async () => {
    const { deliveries } = world().stores;
    const succeeded = deliveryRecord({ status: 'pending', attempts: [attempt(500)] });
    const retried = deliveryRecord();
    const failed = deliveryRecord();
    await deliveries.insert([succeeded, retried, failed]);
    const retryAt = new Date(Date.now() + 5000).toISOString();
    await deliveries.recordAttempts([
      {
        organization: 'org_a',
        id: succeeded.id,
        result: {
          attempt: attempt(200),
          status: 'succeeded',
          url: 'https://hooks.example.com/moved',
        },
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
    ]);
    const stored = await Promise.all(
      [succeeded, retried, failed].map((d) => deliveries.get('org_a', d.id)),
    );
    expect(stored.map((d) => d!.status)).to.deep.equal(['succeeded', 'pending', 'failed']);
    expect(stored.map((d) => d!.attempts.map((a) => a.statusCode))).to.deep.equal([
      [500, 200],
      [503],
      [400],
    ]);
    expect(stored[0]!.url).to.equal('https://hooks.example.com/moved');
    expect(stored[0]!.nextAttemptAt).to.equal(undefined);
    expect(stored[1]!.nextAttemptAt).to.equal(retryAt);
    expect(stored[2]!.nextAttemptAt).to.equal(undefined);
  });

  it('pages through the pending deliveries in id order (what the due queue is rebuilt from)', async () => {
    const { deliveries } = world().stores;
    // One in a lane: the rebuild puts it back in its lane, in creation order.
    const pending = Array.from({ length: 5 }, (_, i) =>
      deliveryRecord(i === 0 ? { lane: 'wh_1 order-1' } : {}),
    );
    const done = deliveryRecord({ status: 'succeeded', nextAttemptAt: undefined });
    await deliveries.insert([...pending, done]);
    const expected = pending.map((d) => d.id).sort();
    const first = await deliveries.pending('', 3);
    const rest = await deliveries.pending(first[first.length - 1]!.id, 3);
    expect([...first, ...rest].map((d) => d.id)).to.deep.equal(expected);
    const one = first[0]!;
    const source = pending.find((d) => d.id === one.id)!;
    expect(one).to.deep.equal({
      id: source.id,
      url: source.url,
      nextAttemptAt: source.nextAttemptAt,
      createdAt: source.createdAt,
      ...(source.lane && { lane: source.lane }),
    });
    const laned = [...first, ...rest].filter((d) => d.lane);
    expect(laned.map((d) => d.lane)).to.deep.equal(['wh_1 order-1']);
  });

  it('lists and counts by state (failing after a failed attempt, cancelled) within a time window', async () => {
    const { deliveries } = world().stores;
    const at = (second: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, second)).toISOString();
    const pending = deliveryRecord({ createdAt: at(1) });
    const failing = deliveryRecord({ createdAt: at(2), attempts: [attempt(503)] });
    const succeeded = deliveryRecord({ createdAt: at(3), status: 'succeeded' });
    const failed = deliveryRecord({ createdAt: at(4), status: 'failed' });
    const cancelled = deliveryRecord({ createdAt: at(5), attempts: [attempt(500)] });
    const elsewhere = deliveryRecord({ createdAt: at(3), webhookId: 'wh_2', status: 'succeeded' });
    await deliveries.insert([pending, failing, succeeded, failed, cancelled, elsewhere]);
    const after = await deliveries.cancel('org_a', cancelled.id, at(6));
    expect(after).to.include({ status: 'failed', cancelledAt: at(6) });
    expect(after!.nextAttemptAt).to.equal(undefined);
    const ids = async (filter: Parameters<typeof deliveries.list>[1]) =>
      (await deliveries.list('org_a', { webhookId: 'wh_1', ...filter })).map((d) => d.id);
    expect(await ids({ state: 'pending', limit: 10 })).to.deep.equal([pending.id]);
    expect(await ids({ state: 'failing', limit: 10 })).to.deep.equal([failing.id]);
    expect(await ids({ state: 'failed', limit: 10 })).to.deep.equal([failed.id]);
    expect(await ids({ state: 'cancelled', limit: 10 })).to.deep.equal([cancelled.id]);
    expect(await ids({ status: 'failed', limit: 10 })).to.deep.equal([cancelled.id, failed.id]);
    expect(await ids({ since: at(2), until: at(4), limit: 10 })).to.deep.equal([
      succeeded.id,
      failing.id,
    ]);
    expect(await deliveries.count('org_a', 'wh_1', {})).to.deep.equal({
      pending: 1,
      failing: 1,
      succeeded: 1,
      failed: 1,
      cancelled: 1,
    });
    expect(await deliveries.count('org_a', 'wh_1', { since: at(3) })).to.deep.equal({
      pending: 0,
      failing: 0,
      succeeded: 1,
      failed: 1,
      cancelled: 1,
    });
    expect((await deliveries.count('org_b', 'wh_1', {})).succeeded).to.equal(0);
  });

  it('cancels only a pending delivery; an attempt ending after the cancel is kept once', async () => {
    const { deliveries } = world().stores;
    const done = deliveryRecord({ status: 'succeeded' });
    const out = deliveryRecord({ attempts: [attempt(503)] });
    await deliveries.insert([done, out]);
    expect(await deliveries.cancel('org_a', done.id, new Date().toISOString())).to.deep.equal(done);
    expect(await deliveries.cancel('org_b', out.id, new Date().toISOString())).to.equal(undefined);
    expect(await deliveries.cancel('org_a', 'dlv_unknown', new Date().toISOString())).to.equal(
      undefined,
    );
    await deliveries.cancel('org_a', out.id, new Date().toISOString());
    // The attempt that was out when the cancel came fails: the delivery stays cancelled.
    const late = attempt(502);
    const result = {
      attempt: late,
      status: 'pending' as const,
      nextAttemptAt: new Date().toISOString(),
      url: out.url,
    };
    await deliveries.recordAttempts([{ organization: 'org_a', id: out.id, result }]);
    await deliveries.recordAttempts([{ organization: 'org_a', id: out.id, result }]);
    const stored = (await deliveries.get('org_a', out.id))!;
    expect(stored.status).to.equal('failed');
    expect(stored.cancelledAt).to.be.a('string');
    expect(stored.nextAttemptAt).to.equal(undefined);
    expect(stored.attempts.map((a) => a.statusCode)).to.deep.equal([503, 502]);
    // One that succeeded did reach the receiver: it says so.
    await deliveries.recordAttempts([
      {
        organization: 'org_a',
        id: out.id,
        result: {
          attempt: { ...attempt(200), attemptedAt: new Date(Date.now() + 1000).toISOString() },
          status: 'succeeded',
          url: out.url,
        },
      },
    ]);
    expect((await deliveries.get('org_a', out.id))!.status).to.equal('succeeded');
    expect(await deliveries.pending('', 100)).to.not.deep.include({ id: out.id });
  });

  it('is visible from a second store instance on the same database (restart)', async () => {
    const delivery = deliveryRecord({ attempts: [attempt(503)] });
    await world().stores.deliveries.insert([delivery]);
    const reopened = (await world().reopen()).deliveries;
    const [resumed] = await reopened.getMany([delivery.id]);
    expect(resumed!.messageId).to.equal(delivery.messageId);
    expect(resumed!.attempts.map((a) => a.statusCode)).to.deep.equal([503]);
  });
});
