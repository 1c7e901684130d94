import type { EventEnvelope } from '@switchyard/shared';
import { contractSuite } from '@switchyard/shared/testing';
import { InMemoryUsageLedgerStore, MongoUsageLedgerStore } from '../../src/store';
import { UsageLedger } from '../../src/usage/usage-ledger';
import { deltasOf, usageEntryOf } from '../../src/usage/usage-entry';
import type { UsageLedgerStore } from '../../src/store';
import { expect } from '../chai';
import { storeBackends, type StoreWorld } from '../store-fixtures';
import { usageRecorded, usageRefused } from '../usage-fixtures';

const NOV = '2026-11-05T10:00:00.000Z';

contractSuite<StoreWorld>('UsageLedgerStore contract', storeBackends, (world) => {
  const ledger = () => new UsageLedger(world().stores.usageLedger);
  const record = (
    ...events: Array<EventEnvelope<'usage.recorded'> | EventEnvelope<'usage.refused'>>
  ) => ledger().recordBatch(events);
  /** A batch as a process that died after its journal, its entries and some bucket writes leaves it. */
  const halfDone = async (
    store: UsageLedgerStore,
    batch: string,
    events: Array<EventEnvelope<'usage.recorded'>>,
  ) => {
    const entries = events.map(usageEntryOf);
    const journal = { batch, entries, deltas: deltasOf(entries) };
    await store.writeJournal(journal);
    await store.append(batch, entries);
    await store.applyDeltas({
      ...journal,
      deltas: journal.deltas.filter((d) => d.bucket.kind !== 'day'),
    });
  };
  const stale = () => new Date(Date.now() + 1000).toISOString();

  it('counts each event id once into the total, model, route and day buckets', async () => {
    const a = usageRecorded({
      time: NOV,
      model: 'gpt-4.1',
      tokensInput: 100,
      tokensOutput: 20,
      cost: 0.25,
    });
    const b = usageRecorded({
      time: '2026-11-06T23:59:59.999Z',
      model: 'builtin',
      // As recorded before usage routes: its path stays its key.
      endpoint: '/api/v2/ai/content/transform',
      tokensInput: 7,
      tokensOutput: 3,
      cost: 0.1,
    });
    await record(a);
    await record(b, a, b);
    await record(a);
    const store = world().stores.usageLedger;
    expect(await store.totals('org_a', '2026-11')).to.deep.equal({
      tokensInput: 107,
      tokensOutput: 23,
      costNanos: 350_000_000,
      calls: 2,
    });
    const models = await store.buckets('org_a', '2026-11', 'model');
    expect(models).to.have.deep.members([
      { key: 'gpt-4.1', tokensInput: 100, tokensOutput: 20, costNanos: 250_000_000, calls: 1 },
      { key: 'builtin', tokensInput: 7, tokensOutput: 3, costNanos: 100_000_000, calls: 1 },
    ]);
    const routes = await store.buckets('org_a', '2026-11', 'endpoint');
    expect(routes.map((e) => [e.key, e.calls])).to.have.deep.members([
      ['content.generate', 1],
      ['/api/v2/ai/content/transform', 1],
    ]);
    expect(
      (await store.daily('org_a', '2026-11-01', '2026-11-30')).map((d) => [d.key, d.tokensInput]),
    ).to.have.deep.members([
      ['2026-11-05', 100],
      ['2026-11-06', 7],
    ]);
  });

  it('counts usage by key, team and end user, each when the event names it', async () => {
    const attributed = (keyId: string, teamId?: string, endUser?: string) => {
      const event = usageRecorded({ time: NOV, tokensInput: 10, tokensOutput: 5, cost: 0.5 });
      Object.assign(event.data, { keyId, teamId, endUser });
      return event;
    };
    const a = attributed('key_a', 'team_x', 'ann');
    await record(a, attributed('key_a', 'team_x', 'bo'), attributed('key_b', undefined, 'ann'));
    await record(a, attributed('key_c'));
    const store = world().stores.usageLedger;
    const view = async (kind: 'key' | 'team' | 'user') =>
      (await store.buckets('org_a', '2026-11', kind))
        .map((b) => [b.key, b.calls, b.tokensInput, b.costNanos])
        .sort();
    expect(await view('key')).to.deep.equal([
      ['key_a', 2, 20, 1_000_000_000],
      ['key_b', 1, 10, 500_000_000],
      ['key_c', 1, 10, 500_000_000],
    ]);
    expect(await view('team')).to.deep.equal([['team_x', 2, 20, 1_000_000_000]]);
    expect(await view('user')).to.deep.equal([
      ['ann', 2, 20, 1_000_000_000],
      ['bo', 1, 10, 500_000_000],
    ]);
  });

  it("sums a key's, a team's and an end user's budget days, each by its own lines", async () => {
    const on = (time: string, keyId: string, teamId?: string, endUser?: string) => {
      const event = usageRecorded({ time, tokensInput: 10, tokensOutput: 5, cost: 0.25 });
      Object.assign(event.data, { keyId, teamId, endUser });
      return event;
    };
    await record(
      on('2026-11-30T10:00:00.000Z', 'key_a', 'team_x', 'ann'),
      on('2026-12-01T09:00:00.000Z', 'key_a', 'team_x', 'ann'),
      on('2026-12-01T10:00:00.000Z', 'key_a', undefined, 'bo'),
      on('2026-12-02T10:00:00.000Z', 'key_b', 'team_x', 'ann'),
    );
    const store = world().stores.usageLedger;
    const days = (kind: 'key-day' | 'team-day' | 'user-day', keys: string[]) =>
      store.sum(
        'org_a',
        keys.map((key) => ({ kind, period: key.slice(0, 7), key })),
      );
    // A week across two months: both months' lines.
    const keyWeek = await days('key-day', [
      '2026-11-30/key_a',
      '2026-12-01/key_a',
      '2026-12-02/key_a',
    ]);
    expect(keyWeek).to.include({
      tokensInput: 30,
      tokensOutput: 15,
      costNanos: 750_000_000,
      calls: 3,
    });
    expect(
      await days('team-day', ['2026-11-30/team_x', '2026-12-01/team_x', '2026-12-02/team_x']),
    ).to.include({ calls: 3 });
    // An end user's lines are per key: ann behind key_a, not behind key_b.
    expect(
      await days('user-day', [
        '2026-11-30/key_a/ann',
        '2026-12-01/key_a/ann',
        '2026-12-02/key_a/ann',
      ]),
    ).to.include({ calls: 2, tokensInput: 20 });
    expect(await days('key-day', ['2026-12-03/key_a'])).to.include({ calls: 0, tokensInput: 0 });
    // Budget days are not reported among the month's lines.
    expect((await store.buckets('org_a', '2026-12', 'key')).map((b) => b.key).sort()).to.deep.equal(
      ['key_a', 'key_b'],
    );
  });

  it('counts refused calls once per event, by day and reason, apart from the usage', async () => {
    const quota = usageRefused('2026-11-05', 'quota', 3);
    const rate = usageRefused('2026-11-05', 'request_rate', 40);
    const later = usageRefused('2026-11-06', 'quota', 2);
    await record(usageRecorded({ time: NOV, tokensInput: 10, tokensOutput: 5 }), quota);
    // A redelivered count (same event id) is counted once; another replica's adds up.
    await record(rate, quota, later, usageRefused('2026-11-05', 'quota', 1));
    await record(usageRefused('2026-11-05', 'quota', 4, 'org_b'));
    const store = world().stores.usageLedger;
    expect(await store.totals('org_a', '2026-11')).to.deep.equal({
      tokensInput: 10,
      tokensOutput: 5,
      costNanos: 0,
      calls: 1,
    });
    expect(
      (await store.buckets('org_a', '2026-11', 'refused')).map((b) => [b.key, b.calls]),
    ).to.have.deep.members([
      ['2026-11-05/quota', 4],
      ['2026-11-05/request_rate', 40],
      ['2026-11-06/quota', 2],
    ]);
    expect((await store.buckets('org_a', '2026-11', 'model')).map((b) => b.key)).to.deep.equal([
      'builtin',
    ]);
    expect(
      (await store.daily('org_a', '2026-11-01', '2026-11-30')).map((d) => d.key),
    ).to.deep.equal(['2026-11-05']);
    // A month with refusals only.
    await record(usageRefused('2026-12-01', 'token_rate', 7));
    expect(await store.totals('org_a', '2026-12')).to.deep.include({ calls: 0, tokensInput: 0 });
    expect(
      (await store.buckets('org_a', '2026-12', 'refused')).map((b) => [b.key, b.calls]),
    ).to.deep.equal([['2026-12-01/token_rate', 7]]);
  });

  it('keeps organizations, periods and day ranges apart, also within one batch', async () => {
    await record(
      usageRecorded({ time: NOV, tokensInput: 1, tokensOutput: 0 }),
      usageRecorded({ organization: 'org_b', time: NOV, tokensInput: 2, tokensOutput: 0 }),
      usageRecorded({ time: '2026-10-31T23:00:00.000Z', tokensInput: 4, tokensOutput: 0 }),
    );
    const store = world().stores.usageLedger;
    expect((await store.totals('org_a', '2026-11')).tokensInput).to.equal(1);
    expect((await store.totals('org_b', '2026-11')).tokensInput).to.equal(2);
    expect((await store.totals('org_a', '2026-10')).tokensInput).to.equal(4);
    expect(await store.totals('org_c', '2026-11')).to.deep.equal({
      tokensInput: 0,
      tokensOutput: 0,
      costNanos: 0,
      calls: 0,
    });
    expect(await store.buckets('org_b', '2026-10', 'model')).to.deep.equal([]);
    // A day range may span months.
    expect(
      (await store.daily('org_a', '2026-10-25', '2026-11-05')).map((d) => d.key).sort(),
    ).to.deep.equal(['2026-10-31', '2026-11-05']);
    expect(await store.daily('org_a', '2026-11-06', '2026-11-30')).to.deep.equal([]);
  });

  it('a batch that died after writing to the buckets: a redelivery adds nothing, the sweep completes it once', async () => {
    const store = world().stores.usageLedger;
    const [a, b] = [
      usageRecorded({ time: NOV, tokensInput: 40, tokensOutput: 2 }),
      usageRecorded({ time: NOV, tokensInput: 5, tokensOutput: 0 }),
    ];
    await halfDone(store, 'bat_dead', [a, b]);
    const counted = await record(
      a,
      b,
      usageRecorded({ time: NOV, tokensInput: 1, tokensOutput: 0 }),
    );
    expect(counted.map((c) => [c.organization, c.period, c.entries.length])).to.deep.equal([
      ['org_a', '2026-11', 1],
    ]);
    expect((await store.staleJournals(stale(), 10)).map((j) => j.batch)).to.deep.equal([
      'bat_dead',
    ]);
    expect((await ledger().sweep(-1000)).map((c) => c.period)).to.deep.equal(['2026-11']);
    expect(await store.totals('org_a', '2026-11')).to.deep.equal({
      tokensInput: 46,
      tokensOutput: 2,
      costNanos: 0,
      calls: 3,
    });
    expect((await store.daily('org_a', '2026-11-05', '2026-11-05'))[0]).to.include({
      tokensInput: 46,
      calls: 3,
    });
    expect(await store.staleJournals(stale(), 10)).to.deep.equal([]);
    await record(a, b);
    expect((await store.totals('org_a', '2026-11')).calls).to.equal(3);
  });

  it('a batch that died after its journal only: a redelivery counts the events, the stale journal then adds nothing', async () => {
    const store = world().stores.usageLedger;
    const event = usageRecorded({ time: NOV, tokensInput: 30, tokensOutput: 0 });
    const entries = [usageEntryOf(event)];
    await store.writeJournal({ batch: 'bat_dead', entries, deltas: deltasOf(entries) });
    await record(event);
    await ledger().sweep(-1000);
    await record(event);
    expect(await store.totals('org_a', '2026-11')).to.deep.equal({
      tokensInput: 30,
      tokensOutput: 0,
      costNanos: 0,
      calls: 1,
    });
    expect(await store.staleJournals(stale(), 10)).to.deep.equal([]);
  });

  it('a stale journal whose entries were never appended is counted by the sweep, once', async () => {
    const store = world().stores.usageLedger;
    const entries = [usageEntryOf(usageRecorded({ time: NOV, tokensInput: 7, tokensOutput: 0 }))];
    await store.writeJournal({ batch: 'bat_dead', entries, deltas: deltasOf(entries) });
    expect(
      await store.staleJournals(new Date(Date.now() - 60_000).toISOString(), 10),
    ).to.deep.equal([]);
    await ledger().sweep(-1000);
    await ledger().sweep(-1000);
    expect(await store.totals('org_a', '2026-11')).to.deep.include({ tokensInput: 7, calls: 1 });
  });

  it('a repeated event counts with the data first recorded', async () => {
    const first = usageRecorded({ time: NOV, tokensInput: 10, tokensOutput: 0 });
    await record(first);
    await record({ ...first, data: { ...first.data, tokensInput: 999 } });
    expect((await world().stores.usageLedger.totals('org_a', '2026-11')).tokensInput).to.equal(10);
  });

  it('is exact after many batches of one organization, with repeats across batches', async () => {
    const events = Array.from({ length: 60 }, (_, n) =>
      usageRecorded({
        time: NOV,
        model: `m${n % 3}`,
        tokensInput: n,
        tokensOutput: 1,
        cost: 0.001,
      }),
    );
    for (let i = 0; i < 60; i += 7)
      await record(...events.slice(i, i + 7), ...events.slice(Math.max(0, i - 3), i));
    await record(...events.slice(0, 20));
    const totals = await world().stores.usageLedger.totals('org_a', '2026-11');
    expect(totals).to.deep.equal({
      tokensInput: (59 * 60) / 2,
      tokensOutput: 60,
      costNanos: 60_000_000,
      calls: 60,
    });
    const models = await world().stores.usageLedger.buckets('org_a', '2026-11', 'model');
    expect(models.reduce((sum, m) => sum + m.calls, 0)).to.equal(60);
  });

  it('is exact when different organizations are recorded concurrently', async () => {
    const organizations = ['org_a', 'org_b', 'org_c', 'org_d'];
    await Promise.all(
      organizations.map(async (organization) => {
        for (let n = 0; n < 5; n++)
          await record(
            ...Array.from({ length: 3 }, () =>
              usageRecorded({ organization, time: NOV, tokensInput: 3, tokensOutput: 1 }),
            ),
          );
      }),
    );
    for (const organization of organizations) {
      expect(await world().stores.usageLedger.totals(organization, '2026-11')).to.deep.equal({
        tokensInput: 45,
        tokensOutput: 15,
        costNanos: 0,
        calls: 15,
      });
    }
  });

  it('keeps the per-bucket guard bounded yet covering the most recent batches (window rotation)', async () => {
    const connection = world().connection;
    const store = connection
      ? new MongoUsageLedgerStore(connection.db, 3)
      : new InMemoryUsageLedgerStore(3);
    const journals = Array.from({ length: 8 }, (_, n) => {
      const entry = usageEntryOf(
        usageRecorded({ time: NOV, tokensInput: 1, tokensOutput: 0, id: `evt_rot_${n}` }),
      );
      return { batch: `bat_${n}`, entries: [entry], deltas: deltasOf([entry]) };
    });
    for (const journal of journals) {
      await store.applyDeltas(journal);
      await store.applyDeltas(journal); // re-application right after: always inside the window
    }
    // The last 3 batches are still guarded after the rotations.
    for (const journal of journals.slice(-3)) await store.applyDeltas(journal);
    expect(await store.totals('org_a', '2026-11')).to.deep.equal({
      tokensInput: 8,
      tokensOutput: 0,
      costNanos: 0,
      calls: 8,
    });
    if (connection) {
      const doc = await connection.db.collection('usage_projection').findOne({ kind: 'total' });
      expect((doc?.applied as string[]).length).to.be.below(3);
    }
  });

  it('lists the buckets of a month counted before totals listed their keys (upgrade)', async function () {
    const connection = world().connection;
    if (!connection) this.skip();
    await record(usageRecorded({ time: NOV, model: 'gpt-4.1', tokensInput: 5, tokensOutput: 1 }));
    await connection!.db
      .collection('usage_projection')
      .updateOne({ kind: 'total' }, { $unset: { keys: '', keysListed: '' } });
    // Counted after the upgrade: the total now lists only this model.
    await record(usageRecorded({ time: NOV, model: 'builtin', tokensInput: 2, tokensOutput: 1 }));
    const models = await world().stores.usageLedger.buckets('org_a', '2026-11', 'model');
    expect(models.map((m) => [m.key, m.tokensInput]).sort()).to.deep.equal([
      ['builtin', 2],
      ['gpt-4.1', 5],
    ]);
    expect(
      (await world().stores.usageLedger.daily('org_a', '2026-11-01', '2026-11-30')).map((d) => [
        d.key,
        d.calls,
      ]),
    ).to.deep.equal([['2026-11-05', 2]]);
  });

  it('is visible from a second store instance on the same database (restart)', async () => {
    const event = usageRecorded({ time: NOV, tokensInput: 40, tokensOutput: 0 });
    await record(event);
    const reopened = await world().reopen();
    await new UsageLedger(reopened.usageLedger).recordBatch([event]);
    expect((await reopened.usageLedger.totals('org_a', '2026-11')).tokensInput).to.equal(40);
  });

  it('lists billed calls newest first, a page at a time after a cursor, by key, refusals left out', async () => {
    const at = (minute: number) => new Date(Date.UTC(2026, 10, 5, 10, minute)).toISOString();
    const calls = [
      usageRecorded({ time: at(1), id: 'evt_c1', model: 'gpt-4.1', tokensInput: 7 }),
      usageRecorded({ time: at(2), id: 'evt_c2', keyId: 'key_2' }),
      // Two calls of the same millisecond: ordered by event id.
      usageRecorded({ time: at(3), id: 'evt_c3a' }),
      usageRecorded({ time: at(3), id: 'evt_c3b', keyId: 'key_2' }),
      usageRecorded({ time: at(4), id: 'evt_other', organization: 'org_b' }),
    ];
    await record(...calls, usageRefused('2026-11-05', 'quota', 3));
    const store = world().stores.usageLedger;
    const ids = (entries: Array<{ eventId: string }>) => entries.map((e) => e.eventId);
    const first = await store.calls('org_a', { limit: 3 });
    expect(ids(first)).to.deep.equal(['evt_c3b', 'evt_c3a', 'evt_c2']);
    const last = first[2]!;
    const rest = await store.calls('org_a', {
      limit: 3,
      before: { occurredAt: last.occurredAt, eventId: last.eventId },
    });
    expect(ids(rest)).to.deep.equal(['evt_c1']);
    expect(rest[0]).to.deep.include({
      organization: 'org_a',
      model: 'gpt-4.1',
      endpoint: 'content.generate',
      tokensInput: 7,
      keyId: 'key_1',
      outcome: 'succeeded',
      occurredAt: at(1),
    });
    expect(rest[0]!.requestId).to.match(/^req_/);
    const mid = first[0]!;
    expect(
      ids(
        await store.calls('org_a', {
          limit: 10,
          before: { occurredAt: mid.occurredAt, eventId: mid.eventId },
        }),
      ),
    ).to.deep.equal(['evt_c3a', 'evt_c2', 'evt_c1']);
    expect(ids(await store.calls('org_a', { keyId: 'key_2', limit: 10 }))).to.deep.equal([
      'evt_c3b',
      'evt_c2',
    ]);
    expect(ids(await store.calls('org_b', { limit: 10 }))).to.deep.equal(['evt_other']);
  });
});

contractSuite<StoreWorld>('ThresholdStore contract', storeBackends, (world) => {
  const record = (share: number, usage: number) => ({
    organization: 'org_a',
    period: '2026-11',
    share,
    usage,
    threshold: Math.floor(share * 1000),
    quota: 1000,
    occurredAt: NOV,
    notified: false,
  });

  it('keeps the first crossing per organization, period and share, also under concurrent claims', async () => {
    const claims = await Promise.all(
      [910, 920, 930, 940].map((usage) => world().stores.thresholds.claim(record(0.9, usage))),
    );
    expect(new Set(claims.map((c) => c.usage)).size).to.equal(1);
    expect(await world().stores.thresholds.list('org_a', '2026-11')).to.have.length(1);
    expect((await world().stores.thresholds.claim(record(0.9, 999))).usage).to.equal(
      claims[0]!.usage,
    );
  });

  it('marks notified and keeps organizations and periods apart', async () => {
    await world().stores.thresholds.claim(record(0.9, 905));
    await world().stores.thresholds.claim(record(1, 1001));
    await world().stores.thresholds.markNotified('org_a', '2026-11', 0.9);
    const list = await world().stores.thresholds.list('org_a', '2026-11');
    expect(list.map((r) => [r.share, r.notified])).to.have.deep.members([
      [0.9, true],
      [1, false],
    ]);
    expect(await world().stores.thresholds.list('org_b', '2026-11')).to.deep.equal([]);
    expect(await world().stores.thresholds.list('org_a', '2026-12')).to.deep.equal([]);
  });
});

contractSuite<StoreWorld>('PolicyStore contract', storeBackends, (world) => {
  const policy = (organization: string, quota: number) => ({
    organization,
    monthlyTokenQuota: quota,
    thresholdShares: [0.5, 0.9, 1],
    hardQuota: true,
    updatedAt: NOV,
  });

  it('replaces an organization policy and keeps organizations apart', async () => {
    await world().stores.policies.put(policy('org_a', 100));
    await world().stores.policies.put(policy('org_a', 200));
    await world().stores.policies.put(policy('org_b', 5));
    expect(await world().stores.policies.get('org_a')).to.deep.equal(policy('org_a', 200));
    expect((await world().stores.policies.get('org_b'))?.monthlyTokenQuota).to.equal(5);
    expect(await world().stores.policies.get('org_c')).to.equal(undefined);
    const reopened = await world().reopen();
    expect(await reopened.policies.get('org_a')).to.deep.equal(policy('org_a', 200));
  });
});
