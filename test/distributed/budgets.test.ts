import { expect } from 'chai';
import { Redis } from 'ioredis';
import { waitFor } from '@switchyard/shared/testing';
import { realInfrastructure, startStack, type RunningStack } from '../support/stack';
import { callApi } from '../support/http';

const ADMIN_TOKEN = 'adm_budgets_0123456789abcdef';
const BUDGET = 400;
const CONCURRENCY = 6;

/**
 * A key's budget through the gateway on the stack (separate processes on real Kafka, MongoDB and
 * Redis): concurrent calls are refused at its edge without passing it, and after Redis loses
 * every counter the budget still holds, its counter rebuilt from the usage ledger.
 */
describe('distributed: a key budget at its edge and through a Redis flush', function () {
  this.timeout(180_000);
  let run: RunningStack;

  before(async function () {
    if (!realInfrastructure()) this.skip();
    run = await startStack({
      MODEL_REGISTRY_JSON: JSON.stringify({
        defaultModel: 'builtin',
        models: [{ id: 'builtin', provider: 'builtin' }],
      }),
      ADMIN_TOKEN,
    });
  });

  after(async () => {
    await run?.stack.stopAll();
  });

  afterEach(function () {
    if (this.currentTest?.state === 'failed' && run)
      process.stderr.write(`${run.log.slice(-60).join('\n')}\n`);
  });

  const admin = (path: string, body?: unknown) =>
    callApi(run.stack.gatewayUrl, '', path, {
      body,
      key: null,
      headers: { 'x-admin-token': ADMIN_TOKEN },
    });

  it('refuses at the edge of a daily token budget, and still after a Redis flush', async () => {
    const id = `budget-${Date.now().toString(36)}`;
    const org = await admin('/api/v2/admin/organizations', {
      id,
      name: 'Budgets',
      monthlyTokenQuota: 1_000_000,
    });
    expect(org.status, org.text).to.equal(201);
    const issued = await admin(`/api/v2/admin/organizations/${id}/keys`, {
      name: 'budgeted',
      budget: { tokens: BUDGET, period: 'day' },
    });
    expect(issued.status, issued.text).to.equal(201);
    const key = issued.body.key as string;
    const call = () =>
      callApi(run.stack.gatewayUrl, key, '/api/v2/ai/content/generate', {
        body: { prompt: 'A budget at its edge', model: 'builtin', max_length: 20 },
      });

    let served = 0;
    const statuses = new Map<number, number>();
    const caller = async () => {
      for (;;) {
        const res = await call();
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        if (res.status !== 200) {
          expect(res.status, res.text).to.equal(429);
          expect(res.body.error).to.include({ code: 'budget_exceeded' });
          expect(res.body.error.details[0]).to.include({ level: 'key', limit: 'tokens' });
          return;
        }
        served += res.body.usage.tokens_input + res.body.usage.tokens_output;
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, () => caller()));
    // Reservations are atomic: the calls together stay within the budget (each settles under its estimate).
    expect(served).to.be.at.most(BUDGET);
    expect(served, JSON.stringify([...statuses])).to.be.greaterThan(BUDGET / 2);

    // The ledger has every call (their usage events) before Redis loses the counters.
    await waitFor(async () => {
      const usage = await callApi(run.stack.gatewayUrl, key, '/api/v2/usage');
      const line = (
        usage.body.byKey as Array<{ keyId: string; tokensInput: number; tokensOutput: number }>
      ).find((b) => b.keyId === issued.body.keyId);
      return line !== undefined && line.tokensInput + line.tokensOutput === served;
    }, 30_000);
    const redis = new Redis(process.env.REDIS_URL!);
    try {
      await redis.flushall();
    } finally {
      redis.disconnect();
    }
    const after = await call();
    expect(after.status, after.text).to.equal(429);
    expect(after.body.error.details[0]).to.include({ level: 'key', used: served });
  });
});
