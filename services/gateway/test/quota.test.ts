import { expect } from 'chai';
import {
  AppError,
  countTokens,
  createInMemorySharedState,
  type SharedState,
} from '@switchyard/shared';
import { waitFor } from '@switchyard/shared/testing';
import { quotaKey } from '../src/metering/quota';
import { periodOf, secondsUntilEnd } from '../src/metering/period';
import { orgWithKey } from './accounts-helpers';
import { usageReport } from './doubles';
import { resetDoubles, startHarness, type Harness } from './harness';
import { readEvents } from '@switchyard/shared/testing';

const GENERATE = '/api/v2/ai/content/generate';
/** The content double answers generate with 12 input + 34 output tokens. */
const GENERATE_TOKENS = 46;

describe('gateway monthly token quota', () => {
  let h: Harness;
  before(async () => (h = await startHarness()));
  after(() => h.stop());
  afterEach(() => resetDoubles(h));

  const counter = (org: string) =>
    h.sharedState.counters.get(quotaKey(org, periodOf(new Date()).name));
  const body = { prompt: 'Write a tagline', max_length: 10 };
  const estimate = countTokens(body.prompt) + 10;

  it('reserves the estimate, settles to the real usage, and refuses with 429 once the quota is used', async () => {
    const { key } = await orgWithKey(h, {
      id: 'hard',
      monthlyTokenQuota: 2 * GENERATE_TOKENS + estimate - 1,
    });
    for (let call = 1; call <= 2; call++) {
      expect((await h.send('POST', GENERATE, { key, body })).status).to.equal(200);
      expect(await counter('hard')).to.equal(call * GENERATE_TOKENS);
    }
    const refused = await h.send('POST', GENERATE, { key, body });
    expect(refused.status).to.equal(429);
    expect(refused.body.error.code).to.equal('quota_exceeded');
    expect(refused.body.error.details[0]).to.include({
      quota: 2 * GENERATE_TOKENS + estimate - 1,
      used: 2 * GENERATE_TOKENS,
    });
    const expected = secondsUntilEnd(periodOf(new Date()), new Date());
    expect(Number(refused.headers.get('retry-after'))).to.be.within(expected - 5, expected + 1);
    expect(h.doubles.content.called('Generate')).to.equal(2);
    expect(await counter('hard')).to.equal(2 * GENERATE_TOKENS);
  });

  it('uses max_length, or the default output budget (256), in the estimate', async () => {
    const { key } = await orgWithKey(h, {
      id: 'budget',
      monthlyTokenQuota: countTokens('x') + 255,
    });
    const refused = await h.send('POST', GENERATE, { key, body: { prompt: 'x' } });
    expect(refused.status, 'input + 256 does not fit').to.equal(429);
    expect(
      (await h.send('POST', GENERATE, { key, body: { prompt: 'x', max_length: 255 } })).status,
    ).to.equal(200);
  });

  it('gives the reservation back when the call fails', async () => {
    const { key } = await orgWithKey(h, { id: 'failing', monthlyTokenQuota: 10_000 });
    h.doubles.content.on('Generate', async () => {
      throw new AppError('upstream_error', 'provider down');
    });
    expect((await h.send('POST', GENERATE, { key, body })).status).to.equal(502);
    expect(await counter('failing')).to.equal(0);
  });

  it('keeps the estimate for an asynchronous (202) call', async () => {
    const { key } = await orgWithKey(h, { id: 'async', monthlyTokenQuota: 10_000 });
    const reply = await h.send('POST', GENERATE, {
      key,
      body: { ...body, webhookUrl: 'https://hooks.example.com/in' },
    });
    expect(reply.status).to.equal(202);
    expect(await counter('async')).to.equal(estimate);
  });

  it('settles a streamed call from its done event, and meters transform and assistants', async () => {
    const { key } = await orgWithKey(h, { id: 'mixed', monthlyTokenQuota: 10_000 });
    const stream = await fetch(`${h.baseUrl}${GENERATE}`, {
      method: 'POST',
      headers: { authorization: `X-API-Key ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ...body, stream: true }),
    });
    const events = await readEvents(stream);
    expect(events.at(-1)!.event).to.equal('done');
    await waitFor(async () => (await counter('mixed')) === GENERATE_TOKENS, 2000);
    expect(
      (
        await h.send('POST', '/api/v2/ai/content/transform', {
          key,
          body: { action: 'summarize', text: 'Long text' },
        })
      ).status,
    ).to.equal(200);
    expect(await counter('mixed')).to.equal(GENERATE_TOKENS + 28); // transform double: 20 + 8
    const chat = {
      user_id: 'u1',
      session_id: 's1',
      messages: [{ role: 'user', content: 'Hello' }],
    };
    expect(
      (await h.send('POST', '/api/v2/ai/assistants/chat', { key, body: chat })).status,
    ).to.equal(200);
    expect(await counter('mixed')).to.equal(GENERATE_TOKENS + 28 + 42); // tokens_used
  });

  it('does not meter recommendations, catalog or webhooks', async () => {
    const { key } = await orgWithKey(h, { id: 'free', monthlyTokenQuota: 1 });
    expect(
      (await h.send('POST', '/api/v2/ai/recommendations', { key, body: { userId: 'u1' } })).status,
    ).to.equal(200);
    expect((await h.send('GET', '/api/webhooks', { key })).status).to.equal(200);
    expect(await counter('free')).to.equal(0);
  });

  it('never refuses with a soft quota, and still counts', async () => {
    const { key } = await orgWithKey(h, { id: 'soft', monthlyTokenQuota: 10, hardQuota: false });
    for (let i = 0; i < 3; i++)
      expect((await h.send('POST', GENERATE, { key, body })).status).to.equal(200);
    expect(await counter('soft')).to.equal(3 * GENERATE_TOKENS);
  });

  it('seeds a new period counter once from the usage ledger (notification.GetUsage)', async () => {
    const quota = 80 + estimate + GENERATE_TOKENS - 1;
    h.doubles.notification.on('GetUsage', async (req, ctx) =>
      usageReport(ctx.organization, req.period, 80),
    );
    const { key } = await orgWithKey(h, { id: 'seeded', monthlyTokenQuota: quota });
    expect((await h.send('POST', GENERATE, { key, body })).status).to.equal(200);
    expect(await counter('seeded')).to.equal(80 + GENERATE_TOKENS);
    expect((await h.send('POST', GENERATE, { key, body })).status).to.equal(429);
    const seeds = h.doubles.notification.calls.filter((c) => c.method === 'GetUsage');
    expect(seeds).to.have.length(1);
    expect(seeds[0]!.request.period).to.equal(periodOf(new Date()).name);
    expect(seeds[0]!.context.organization).to.equal('seeded');
  });

  it('counts from the reservations and adds the ledger later when it is unreachable at first', async () => {
    h.doubles.notification.on('GetUsage', async () => {
      throw new AppError('unavailable', 'ledger down');
    });
    const { key } = await orgWithKey(h, { id: 'unseeded', monthlyTokenQuota: 10_000 });
    expect((await h.send('POST', GENERATE, { key, body })).status).to.equal(200);
    expect(await counter('unseeded')).to.equal(GENERATE_TOKENS);
    h.doubles.notification.on('GetUsage', async (req, ctx) =>
      usageReport(ctx.organization, req.period, 100),
    );
    expect((await h.send('POST', GENERATE, { key, body })).status).to.equal(200);
    // The ledger's 100 include the first call, which the reservations count too: the larger of the two, then this call.
    expect(await counter('unseeded')).to.equal(100 + GENERATE_TOKENS);
  });
});

/** Shared state that can lose everything at once, as Redis does on FLUSHALL (the gateway reads it per call). */
function wipeableSharedState(): { state: SharedState; wipe(): void } {
  let inner = createInMemorySharedState();
  const state: SharedState = {
    admit: (admission) => inner.admit(admission),
    get counters() {
      return inner.counters;
    },
    get rateLimiter() {
      return inner.rateLimiter;
    },
    get locks() {
      return inner.locks;
    },
    get idempotencyKeys() {
      return inner.idempotencyKeys;
    },
    close: () => inner.close(),
  };
  return { state, wipe: () => (inner = createInMemorySharedState()) };
}

describe('gateway hard quota after the shared state is wiped', () => {
  let h: Harness;
  const shared = wipeableSharedState();
  before(async () => (h = await startHarness({ sharedState: shared.state })));
  after(() => h.stop());
  afterEach(() => resetDoubles(h));

  const counter = (org: string) =>
    shared.state.counters.get(quotaKey(org, periodOf(new Date()).name));
  const body = { prompt: 'Write a tagline', max_length: 10 };
  const estimate = countTokens(body.prompt) + 10;

  it('rebuilds the counter from the durable reservations, not the lagging ledger: no overshoot', async () => {
    h.doubles.notification.on('GetUsage', async (req, ctx) =>
      usageReport(ctx.organization, req.period, 0),
    ); // lags: nothing yet
    const { key } = await orgWithKey(h, {
      id: 'wiped',
      monthlyTokenQuota: 3 * GENERATE_TOKENS + estimate - 1,
    });
    for (let i = 0; i < 3; i++)
      expect((await h.send('POST', GENERATE, { key, body })).status).to.equal(200);
    expect(await counter('wiped')).to.equal(3 * GENERATE_TOKENS);
    shared.wipe();
    const refused = await h.send('POST', GENERATE, { key, body });
    expect(refused.status, JSON.stringify(refused.body)).to.equal(429);
    expect(await counter('wiped')).to.equal(3 * GENERATE_TOKENS);
    expect(h.doubles.content.called('Generate')).to.equal(3);
  });

  it('refuses every call of a burst that finds the counter gone, once it is rebuilt from the reservations', async () => {
    h.doubles.notification.on('GetUsage', async (req, ctx) =>
      usageReport(ctx.organization, req.period, 0),
    );
    const { key } = await orgWithKey(h, {
      id: 'burst',
      monthlyTokenQuota: 3 * GENERATE_TOKENS + estimate - 1,
    });
    for (let i = 0; i < 3; i++)
      expect((await h.send('POST', GENERATE, { key, body })).status).to.equal(200);
    shared.wipe();
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => h.send('POST', GENERATE, { key, body })),
    );
    expect(answers.map((a) => a.status)).to.deep.equal(Array.from({ length: 20 }, () => 429));
    expect(await counter('burst')).to.equal(3 * GENERATE_TOKENS);
    expect(h.doubles.content.called('Generate')).to.equal(3);
  });
});

describe('gateway budgets after the shared state is wiped', () => {
  let h: Harness;
  const shared = wipeableSharedState();
  before(async () => (h = await startHarness({ sharedState: shared.state })));
  after(() => h.stop());
  afterEach(() => resetDoubles(h));

  const body = { prompt: 'Write a tagline', max_length: 10 };

  it("rebuilds a key's daily budget from the ledger's lines of the day: still refused at its edge", async () => {
    await orgWithKey(h, { id: 'budget-wiped' });
    const issued = await h.admin('POST', '/api/v2/admin/organizations/budget-wiped/keys', {
      budget: { tokens: 2 * GENERATE_TOKENS + 5, period: 'day' },
    });
    expect(issued.status, JSON.stringify(issued.body)).to.equal(201);
    const key = issued.body.key as string;
    // The ledger has what the calls used (their usage events), a moment after they ran.
    let ledger = 0;
    h.doubles.notification.on('GetBudgetSpend', async () => ({ tokens: ledger, cost_nanos: 0 }));
    for (let i = 0; i < 2; i++) {
      expect((await h.send('POST', GENERATE, { key, body })).status).to.equal(200);
      ledger += GENERATE_TOKENS;
    }
    shared.wipe();
    const refused = await h.send('POST', GENERATE, { key, body });
    expect(refused.status, JSON.stringify(refused.body)).to.equal(429);
    expect(refused.body.error.details[0]).to.include({ level: 'key', used: 2 * GENERATE_TOKENS });
    const asked = h.doubles.notification.last('GetBudgetSpend').request as Record<string, string>;
    const today = new Date().toISOString().slice(0, 10);
    expect(asked).to.include({ level: 'key', from_day: today, to_day: today });
    expect(h.doubles.content.called('Generate')).to.equal(2);
  });

  it('answers 503 rather than pass a budget while the ledger cannot be read', async function () {
    this.timeout(10_000);
    await orgWithKey(h, { id: 'budget-unread' });
    const issued = await h.admin('POST', '/api/v2/admin/organizations/budget-unread/keys', {
      budget: { tokens: 1000, period: 'month' },
    });
    expect(issued.status, JSON.stringify(issued.body)).to.equal(201);
    const key = issued.body.key as string;
    h.doubles.notification.on('GetBudgetSpend', async () => {
      throw new AppError('unavailable', 'ledger down');
    });
    const answer = await h.send('POST', GENERATE, { key, body });
    expect(answer.status, JSON.stringify(answer.body)).to.equal(503);
    expect(h.doubles.content.called('Generate')).to.equal(0);
  });
});
