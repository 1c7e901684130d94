import { expect } from 'chai';
import { waitFor } from '@switchyard/shared/testing';
import { MixedLoad, type LoadCall, type LoadRecord } from '../support/mixed-load';
import { OutageProxy } from '../support/outage-proxy';
import { realInfrastructure, startStack, type RunningStack } from '../support/stack';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** How long an outage answer may take here: the bound is 1 s; a loaded CI machine gets slack. */
const OUTAGE_ANSWER_LIMIT_MS = 2500;

/**
 * Issue 24, item 3: a shared dependency that goes away answers 503 unavailable with Retry-After
 * at once (no 500, no 10 s wait), /readyz says which one is down, and calls are served again
 * within seconds of its return. Redis and MongoDB are reached through TCP proxies that play the
 * outage, so the shared servers are never touched (Kafka, which advertises its own address, is
 * stopped for real by the fault suite: npm run chaos).
 */
describe('distributed: dependency outages answer 503, readiness names them, service comes back', function () {
  this.timeout(240_000);
  let run: RunningStack;
  let redis: OutageProxy;
  let mongo: OutageProxy;
  let load: MixedLoad;

  before(async function () {
    if (!realInfrastructure()) this.skip();
    redis = OutageProxy.forUrl(process.env.REDIS_URL!);
    mongo = OutageProxy.forUrl(process.env.MONGODB_URI!);
    await redis.start();
    await mongo.start();
    run = await startStack({
      REDIS_URL: redis.urlFor(process.env.REDIS_URL!),
      MONGODB_URI: mongo.urlFor(process.env.MONGODB_URI!),
    });
    const calls: LoadCall[] = [
      {
        name: 'generate',
        send: () =>
          run.api('/api/v2/ai/content/generate', {
            body: { prompt: 'A line about ferries', max_length: 20 },
          }),
      },
      {
        name: 'generate (keyed)',
        send: (n) =>
          run.api('/api/v2/ai/content/generate', {
            body: { prompt: `A line about trams ${n}`, max_length: 20 },
            headers: { 'Idempotency-Key': `outage-${Date.now()}-${n}` },
          }),
      },
      {
        name: 'interactions',
        send: (n) =>
          run.api('/api/v2/interactions', {
            body: { interactions: [{ userId: `u${n % 7}`, itemId: 'tent', type: 'view' }] },
          }),
      },
      { name: 'webhooks', send: () => run.api('/api/webhooks') },
    ];
    load = new MixedLoad(calls, 4);
  });

  after(async () => {
    await load?.stop();
    await run?.stack.stopAll();
    await redis?.stop();
    await mongo?.stop();
  });

  afterEach(function () {
    if (this.currentTest?.state === 'failed' && run)
      process.stderr.write(`${run.log.slice(-60).join('\n')}\n`);
  });

  const readiness = async () => (await run.api('/readyz', { key: null })).body;

  function expectOutageAnswers(records: LoadRecord[], what: string): void {
    const statuses = MixedLoad.statuses(records);
    expect(records.length, `${what}: calls answered`).to.be.greaterThan(5);
    expect(Object.keys(statuses), `${what}: statuses ${JSON.stringify(statuses)}`).to.satisfy(
      (codes: string[]) => codes.every((code) => code === '200' || code === '503'),
    );
    const refused = records.filter((r) => r.status === 503);
    expect(refused.length, `${what}: some calls needed it`).to.be.greaterThan(0);
    for (const r of refused) {
      expect(r.code).to.equal('unavailable');
      expect(r.retryAfter, `${r.call}: Retry-After`).to.equal('1');
    }
    const slowest = Math.max(...refused.map((r) => r.ms));
    process.stdout.write(
      `      ${what}: ${JSON.stringify(statuses)}; 503 answered in at most ${slowest} ms\n`,
    );
    expect(slowest).to.be.below(OUTAGE_ANSWER_LIMIT_MS);
  }

  /** Ms from `since` until every kind of call has answered 200 again. */
  async function recovery(since: number, phase: string): Promise<number> {
    load.setPhase(phase);
    await waitFor(() => {
      const answered = load.of(phase).filter((r) => r.status === 200 && r.sentAt >= since);
      return new Set(answered.map((r) => r.call)).size === 4;
    }, 30_000);
    const first = load.of(phase).filter((r) => r.status === 200);
    return (
      Math.max(
        ...['generate', 'generate (keyed)', 'interactions', 'webhooks'].map((call) =>
          Math.min(...first.filter((r) => r.call === call).map((r) => r.sentAt + r.ms)),
        ),
      ) - since
    );
  }

  it('serves every kind of call before the outages', async () => {
    load.start();
    load.setPhase('baseline');
    await waitFor(() => new Set(load.of('baseline').map((r) => r.call)).size === 4, 60_000);
    expect(MixedLoad.statuses(load.of('baseline'))).to.have.keys('200');
    const ready = await readiness();
    expect(ready.status).to.equal('ready');
    expect(ready.dependencies).to.include({ redis: 'up', mongodb: 'up', kafka: 'up' });
  });

  it('Redis down: 503 unavailable with Retry-After at once, /readyz degraded naming redis; back within seconds', async () => {
    load.setPhase('redis down');
    redis.down();
    await sleep(4000);
    const ready = await readiness();
    expect(ready.status).to.equal('degraded');
    expect(ready.dependencies.redis).to.equal('down');
    load.setPhase('redis returning');
    expectOutageAnswers(load.of('redis down'), 'Redis down');
    const back = Date.now();
    redis.up();
    const ms = await recovery(back, 'after redis');
    process.stdout.write(`      Redis back: every kind of call served again after ${ms} ms\n`);
    expect(ms).to.be.below(5000);
    // Each service's Redis view comes back on its own next check: the calls can be served first.
    await waitFor(async () => (await readiness()).dependencies.redis === 'up', 5000);
  });

  it('MongoDB down: 503 unavailable with Retry-After at once, /readyz degraded naming mongodb; back within seconds', async () => {
    load.setPhase('mongodb down');
    mongo.down();
    await sleep(5000);
    const ready = await readiness();
    expect(ready.status, JSON.stringify(ready)).to.equal('degraded');
    expect(ready.dependencies.mongodb).to.equal('down');
    load.setPhase('mongodb returning');
    expectOutageAnswers(load.of('mongodb down'), 'MongoDB down');
    const back = Date.now();
    mongo.up();
    const ms = await recovery(back, 'after mongodb');
    process.stdout.write(`      MongoDB back: every kind of call served again after ${ms} ms\n`);
    expect(ms).to.be.below(5000);
    await waitFor(async () => (await readiness()).dependencies.mongodb === 'up', 5000);
  });
});
