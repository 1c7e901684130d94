import { AppError, Topics, type AnyEvent } from '@switchyard/shared';
import type {
  OrganizationPolicy__Output,
  UsageReport__Output,
} from '@switchyard/shared/proto/notification/v1';
import { getUsage } from '../src/handlers/get-usage';
import { deltasOf, usageEntryOf } from '../src/usage/usage-entry';
import { expect } from './chai';
import { startTestService, until, type TestService } from './helpers';
import { usageRecorded, usageRefused } from './usage-fixtures';

async function rejection(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    return error as AppError;
  }
  throw new Error('expected a rejection');
}

describe('usage ledger RPCs', () => {
  let svc: TestService;
  let thresholdEvents: AnyEvent[];

  beforeEach(async () => {
    svc = await startTestService({
      DEFAULT_MONTHLY_TOKEN_QUOTA: '1000',
      USAGE_THRESHOLD_SHARES: '0.9,1.0',
    });
    thresholdEvents = [];
    await svc.bus.subscribe({
      group: 'test-thresholds',
      topics: [Topics.usage],
      handler: async (event) =>
        void (event.type === 'usage.threshold_reached' && thresholdEvents.push(event)),
    });
  });

  afterEach(() => svc.stop());

  const report = (request: object = {}, organization = 'org_a') =>
    svc.call<UsageReport__Output>('GetUsage', request, organization);
  const put = (policy: object, organization = 'org_a') =>
    svc.call<OrganizationPolicy__Output>('PutOrganizationPolicy', policy, organization);
  const settled = () =>
    until(() => svc.bus.lag('notification') === 0 && svc.bus.lag('test-thresholds') === 0);

  it('PutOrganizationPolicy stores and returns the policy of the calling organization', async () => {
    const policy = {
      organization: 'org_a',
      monthly_token_quota: 5000,
      threshold_shares: [0.5, 0.8, 1.5],
      hard_quota: true,
    };
    expect(await put(policy)).to.deep.equal(policy);
    expect(await put({ monthly_token_quota: 7, threshold_shares: [] }, 'org_b')).to.deep.equal({
      organization: 'org_b',
      monthly_token_quota: 7,
      threshold_shares: [],
      hard_quota: false,
    });
    const a = await report();
    expect(a).to.include({ quota: 5000, hard_quota: true, remaining: 5000 });
    expect(a.threshold_shares).to.deep.equal([0.5, 0.8, 1.5]);
    expect(await report({}, 'org_c')).to.include({ quota: 1000, hard_quota: false });
  });

  it('PutOrganizationPolicy refuses invalid quotas and shares, naming the field', async () => {
    const cases: Array<[object, string]> = [
      [{ monthly_token_quota: -1, threshold_shares: [1] }, '/monthly_token_quota'],
      [{ monthly_token_quota: 10, threshold_shares: [0] }, '/threshold_shares/0'],
      [{ monthly_token_quota: 10, threshold_shares: [0.5, 10.5] }, '/threshold_shares/1'],
      [{ monthly_token_quota: 10, threshold_shares: [0.9, 0.5] }, '/threshold_shares/1'],
      [{ monthly_token_quota: 10, threshold_shares: [0.9, 0.9] }, '/threshold_shares/1'],
      [{ organization: 'org_b', monthly_token_quota: 10, threshold_shares: [1] }, '/organization'],
    ];
    for (const [policy, field] of cases) {
      const error = await rejection(put(policy));
      expect(error.code, JSON.stringify(policy)).to.equal('invalid_request');
      expect(error.details[0]?.field, JSON.stringify(policy)).to.equal(field);
    }
  });

  it('GetUsage reports totals, sorted breakdowns and a zero-filled daily series', async () => {
    const now = Date.now();
    const today = new Date(now).toISOString();
    const period = today.slice(0, 7);
    await svc.bus.publish(
      usageRecorded({ time: today, model: 'small', tokensInput: 10, tokensOutput: 5, cost: 0.5 }),
    );
    await svc.bus.publish(
      usageRecorded({
        time: today,
        model: 'large',
        route: 'content.transform',
        tokensInput: 100,
        tokensOutput: 50,
        cost: 1.25,
      }),
    );
    await svc.bus.publish(
      usageRecorded({ time: today, model: 'small', tokensInput: 1, tokensOutput: 0, cost: 0.25 }),
    );
    await svc.bus.publish(usageRecorded({ organization: 'org_b', time: today, tokensInput: 999 }));
    await settled();
    const r = await report();
    expect(r).to.deep.include({
      organization: 'org_a',
      period,
      quota: 1000,
      used: 166,
      remaining: 834,
      cost: 2,
      calls: 3,
      hard_quota: false,
    });
    expect(r.period_start).to.equal(`${period}-01T00:00:00.000Z`);
    expect(new Date(r.period_end).getTime()).to.be.greaterThan(now);
    expect(r.by_model.map((b) => [b.key, b.tokens_input, b.tokens_output, b.calls])).to.deep.equal([
      ['large', 100, 50, 1],
      ['small', 11, 5, 2],
    ]);
    expect(r.by_route.map((b) => b.key)).to.deep.equal(['content.transform', 'content.generate']);
    expect(r.daily).to.have.length(30);
    expect(r.daily.at(-1)).to.deep.include({
      key: today.slice(0, 10),
      tokens_input: 111,
      tokens_output: 55,
      calls: 3,
    });
    expect(r.daily.slice(0, -1).every((d) => d.calls === 0 && d.tokens_input === 0)).to.equal(true);
    const week = await report({ days: 7 });
    expect(week.daily.map((d) => d.key)).to.deep.equal(
      Array.from({ length: 7 }, (_, i) =>
        new Date(now - (6 - i) * 86_400_000).toISOString().slice(0, 10),
      ),
    );
    expect(await report({ period: '2020-01' })).to.deep.include({
      used: 0,
      calls: 0,
      remaining: 1000,
      period_end: '2020-02-01T00:00:00.000Z',
    });
  });

  it('GetUsage reports the calls the gateway refused, per day and reason, apart from the calls', async () => {
    const today = new Date().toISOString();
    await svc.bus.publish(usageRecorded({ time: today }));
    await svc.bus.publish(usageRefused(today.slice(0, 10), 'quota', 2));
    await svc.bus.publish(usageRefused(today.slice(0, 10), 'token_rate', 1));
    await svc.bus.publish(usageRefused(today.slice(0, 10), 'quota', 3));
    await settled();
    const r = await report();
    expect(r.calls).to.equal(1);
    expect(r.refused.map((b) => [b.day, b.reason, Number(b.calls)])).to.deep.equal([
      [today.slice(0, 10), 'quota', 5],
      [today.slice(0, 10), 'token_rate', 1],
    ]);
    // Refusals cross no usage threshold.
    expect(thresholdEvents).to.deep.equal([]);
  });

  it('GetUsage refuses a malformed period or days out of range', async () => {
    for (const [request, field] of [
      [{ period: '2026-13' }, '/period'],
      [{ period: 'nov' }, '/period'],
      [{ days: 91 }, '/days'],
      [{ days: -1 }, '/days'],
    ] as const) {
      const error = await rejection(report(request));
      expect(error.code).to.equal('invalid_request');
      expect(error.details[0]?.field).to.equal(field);
    }
  });

  it('GetUsage builds the daily series across month ends, ending today', async () => {
    const stores = svc.service.stores;
    const deps = {
      stores,
      config: { usage: { monthlyTokenQuota: 100, thresholdShares: [1], ledgerSweepMs: 1000 } },
      clock: () => new Date('2027-03-01T12:00:00Z'),
    } as unknown as Parameters<typeof getUsage>[0];
    const r = await getUsage(
      deps,
      { period: '', days: 3 },
      { organization: 'org_a', keyId: '', requestId: 'req_x' },
    );
    expect(r.period).to.equal('2027-03');
    expect((r.daily ?? []).map((d) => d.key)).to.deep.equal([
      '2027-02-27',
      '2027-02-28',
      '2027-03-01',
    ]);
  });

  it('uses the organization policy for thresholds and publishes usage.threshold_reached once per crossing', async () => {
    await put({ monthly_token_quota: 200, threshold_shares: [0.5, 1], hard_quota: false });
    const time = new Date().toISOString();
    const first = usageRecorded({ time, tokensInput: 90, tokensOutput: 15 }); // 105 >= floor(0.5 x 200)
    await svc.bus.publish(first);
    await svc.bus.publish(first);
    await svc.bus.publish(usageRecorded({ time, tokensInput: 50, tokensOutput: 0 })); // 155
    await svc.bus.publish(first);
    await svc.bus.publish(usageRecorded({ time, tokensInput: 60, tokensOutput: 0 })); // 215 >= 200
    await svc.bus.publish(usageRecorded({ time, tokensInput: 60, tokensOutput: 0 }));
    // Default policy for org_b (quota 1000): 950 crosses 0.9 only.
    await svc.bus.publish(
      usageRecorded({ organization: 'org_b', time, tokensInput: 950, tokensOutput: 0 }),
    );
    await settled();
    await until(() => thresholdEvents.length >= 3);
    const period = time.slice(0, 7);
    expect(thresholdEvents.map((e) => [e.organization, e.data])).to.have.deep.members([
      ['org_a', { period, usage: 105, threshold: 100, share: 0.5, quota: 200 }],
      ['org_a', { period, usage: 215, threshold: 200, share: 1, quota: 200 }],
      ['org_b', { period, usage: 950, threshold: 900, share: 0.9, quota: 1000 }],
    ]);
    expect(new Set(thresholdEvents.map((e) => e.id)).size).to.equal(3);
    expect(await report()).to.include({ used: 275, remaining: 0, calls: 4 });
  });

  it('the sweeper completes batches a crash left unapplied, exactly once', async () => {
    const other = await startTestService({ USAGE_LEDGER_SWEEP_MS: '30' });
    try {
      const ledger = other.service.stores.usageLedger;
      const time = new Date().toISOString();
      const projected = usageEntryOf(usageRecorded({ time, tokensInput: 30, tokensOutput: 0 }));
      const appendedOnly = usageEntryOf(usageRecorded({ time, tokensInput: 40, tokensOutput: 0 }));
      const journal = { batch: 'bat_crashed', entries: [projected], deltas: deltasOf([projected]) };
      await ledger.writeJournal(journal);
      await ledger.append(journal.batch, [projected]);
      await ledger.applyDeltas(journal); // crashed before dropping the journal
      await ledger.writeJournal({
        batch: 'bat_early',
        entries: [appendedOnly],
        deltas: deltasOf([appendedOnly]),
      }); // crashed after the journal
      await until(
        async () =>
          (await ledger.staleJournals(new Date(Date.now() + 60_000).toISOString(), 10)).length ===
          0,
      );
      expect(await ledger.totals('org_a', time.slice(0, 7))).to.deep.include({
        tokensInput: 70,
        calls: 2,
      });
    } finally {
      await other.stop();
    }
  });
});
