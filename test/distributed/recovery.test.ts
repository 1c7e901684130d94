import { expect } from 'chai';
import { Redis } from 'ioredis';
import { checkHealth, SERVICE_NAMES } from '@switchyard/shared';
import { FakeLlmServer, silentLogger, waitFor } from '@switchyard/shared/testing';
import { LossyProxy } from '../support/lossy-proxy';
import { WebhookReceiver } from '../support/receiver';
import { freePorts, realInfrastructure, startStack, type RunningStack } from '../support/stack';
import { callApi } from '../support/http';

const ADMIN_TOKEN = 'adm_recovery_0123456789abcdef';
/** Slow enough that a kill -9 finds most async requests still pending. */
const SLOW_CALL_MS = 300;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function registry(baseUrl: string) {
  return {
    defaultModel: 'builtin',
    models: [
      { id: 'builtin', provider: 'builtin' },
      {
        id: 'slow',
        provider: 'openai-compatible',
        baseUrl,
        upstreamModel: 'up-slow',
        contextWindow: 16000,
        maxOutputTokens: 1000,
        capabilities: ['generate'],
        inputPricePerMillion: 1,
        outputPricePerMillion: 2,
        maxRetries: 0,
        timeoutMs: 10_000,
      },
    ],
  };
}

/**
 * Recovery and billing across failures (issue 16), on real Kafka, MongoDB and Redis with every
 * component in its own process: a killed content service serves again at once whatever its
 * backlog; a call whose answer was lost is answered from its kept answer and billed once; a hard
 * quota holds when Redis loses its counters.
 */
describe('distributed: recovery and billing once across failures', function () {
  this.timeout(240_000);
  let run: RunningStack;
  let proxy: LossyProxy;
  let fake: FakeLlmServer;
  let receiver: WebhookReceiver;

  before(async function () {
    if (!realInfrastructure()) this.skip();
    fake = new FakeLlmServer('unused', ['up-slow']);
    const baseUrl = await fake.start();
    const ports = await freePorts(5);
    // The gateway reaches content through a proxy that can lose answers.
    proxy = new LossyProxy('127.0.0.1', ports[1]!);
    const proxyPort = await proxy.start();
    run = await startStack(
      {
        MODEL_REGISTRY_JSON: JSON.stringify(registry(baseUrl)),
        ASYNC_CONCURRENCY: '2',
        GRPC_DEADLINE_MS: '3000',
        ADMIN_TOKEN,
      },
      // Supervised as npm run start:stack runs it (stop() and start() of a proof are not crashes).
      {
        ports,
        gatewayUpstreams: { content: `127.0.0.1:${proxyPort}` },
        supervise: { logger: silentLogger(), initialDelayMs: 200 },
      },
    );
    receiver = await new WebhookReceiver().start();
  });

  after(async () => {
    await run?.stack.stopAll();
    await proxy?.stop();
    await fake?.close();
    await receiver?.stop();
  });

  afterEach(function () {
    if (this.currentTest?.state === 'failed' && run)
      process.stderr.write(`${run.log.slice(-80).join('\n')}\n`);
  });

  const usage = async () =>
    (await run.api('/api/v2/usage')).body as { used: number; calls: number };

  it('answers a retry after a lost answer from the kept answer, and the ledger bills the call once', async () => {
    const body = {
      prompt: 'A tagline for a bakery that never closes',
      max_length: 30,
      model: 'builtin',
    };
    // Warm the gateway's connection to content, so the lost answer is on an established connection.
    expect(
      (await run.api('/api/v2/ai/content/generate', { body: { ...body, prompt: 'warm up' } }))
        .status,
    ).to.equal(200);
    await waitFor(async () => (await usage()).calls >= 1, 30_000);
    const before = await usage();

    // Unique per run: the gateway keeps keys in Redis, which outlives a stack.
    const headers = { 'Idempotency-Key': `lost-answer-${Date.now()}` };
    proxy.loseAnswers();
    const lost = await run.api('/api/v2/ai/content/generate', { body, headers });
    proxy.restore();
    expect(lost.status, lost.text).to.be.within(500, 599); // the work was done; the answer never came back

    const retry = await run.api('/api/v2/ai/content/generate', { body, headers });
    expect(retry.status, retry.text).to.equal(200);
    // The kept answer: billed under the first attempt's request id, which the retry reports.
    expect(retry.body.request_id).to.equal(lost.headers.get('x-request-id'));
    const again = await run.api('/api/v2/ai/content/generate', { body, headers });
    expect(again.headers.get('idempotent-replayed')).to.equal('true');
    expect(again.body).to.deep.equal(retry.body);

    const tokens = retry.body.usage.tokens_input + retry.body.usage.tokens_output;
    await waitFor(async () => (await usage()).calls >= before.calls + 1, 30_000);
    await sleep(3000); // a second bill would show by now
    const after = await usage();
    process.stdout.write(
      `      lost answer: first attempt ${lost.status}, retry 200; ledger +${after.calls - before.calls} call, +${after.used - before.used} tokens (call used ${tokens})\n`,
    );
    expect(after.calls - before.calls).to.equal(1);
    expect(after.used - before.used).to.equal(tokens);
  });

  it('answers a retry with the same Idempotency-Key soon after a gateway killed mid-call is back, billed once', async () => {
    // The model answers after 2 s: the gateway is killed while the call is at the model.
    fake.script('up-slow', { kind: 'ok', delayMs: 2000 }, { kind: 'ok', delayMs: 2000 });
    const before = await usage();
    const headers = { 'Idempotency-Key': `killed-gateway-${Date.now()}` };
    const body = { prompt: 'A tagline for a night train', model: 'slow', max_length: 20 };
    const first = run
      .api('/api/v2/ai/content/generate', { body, headers })
      .catch((error: Error) => error);
    await waitFor(() => (fake.active.get('up-slow') ?? 0) > 0, 10_000); // the call is at the model
    await run.stack.stop('gateway', 'SIGKILL');
    expect(await first).to.be.instanceOf(Error); // the connection went with the gateway
    await run.stack.start('gateway');
    const back = Date.now();
    const answers: number[] = [];
    let retry;
    for (;;) {
      retry = await run.api('/api/v2/ai/content/generate', { body, headers });
      answers.push(retry.status);
      if (retry.status !== 409) break;
      // As a client is told: the key is still leased by the dead attempt until its lease runs out.
      await sleep(Number(retry.headers.get('retry-after') ?? 1) * 1000);
    }
    const answeredMs = Date.now() - back;
    expect(retry.status, retry.text).to.equal(200);
    const tokens = retry.body.usage.tokens_input + retry.body.usage.tokens_output;
    await waitFor(async () => (await usage()).calls >= before.calls + 1, 30_000);
    await sleep(3000); // a second bill would show by now
    const after = await usage();
    process.stdout.write(
      `      gateway killed mid-call: retry answered ${answeredMs} ms after it was back (answers ${answers.join(', ')}); ` +
        `ledger +${after.calls - before.calls} call, +${after.used - before.used} tokens (call used ${tokens})\n`,
    );
    // The bound: the lease (IDEMPOTENCY_LEASE_MS, 3 s) runs out well within it.
    expect(answeredMs).to.be.below(5000);
    // Billed once: the answered call's tokens, counted once. The killed attempt, cancelled at
    // the model, may add a failed call of its own (the tokens it spent: none here).
    expect(after.used - before.used).to.equal(tokens);
    expect(after.calls - before.calls).to.be.within(1, 2);
  });

  it('serves again within seconds after kill -9 with many async requests pending, and completes each exactly once', async () => {
    fake.script(
      'up-slow',
      ...Array.from({ length: 400 }, () => ({ kind: 'ok' as const, delayMs: SLOW_CALL_MS })),
    );
    const submitted: string[] = [];
    // The model answers none of them before the kill: however slowly they are submitted on a
    // loaded machine, every one is pending then (each answers in 300 ms once released).
    const release = fake.hold('up-slow');
    try {
      for (let i = 0; i < 60; i++) {
        const res = await run.api('/api/v2/ai/content/generate', {
          body: { prompt: `pending ${i}`, model: 'slow', max_length: 20, webhookUrl: receiver.url },
        });
        expect(res.status, res.text).to.equal(202);
        submitted.push(res.body.requestId);
      }
      await run.stack.stop('content', 'SIGKILL');
    } finally {
      release();
    }
    const delivered = () => new Set(receiver.calls.map((c) => c.body?.requestId));
    const pending = submitted.filter((id) => !delivered().has(id)).length;

    const started = Date.now();
    await run.stack.start('content'); // returns once grpc.health reports SERVING
    const healthMs = Date.now() - started;
    for (;;) {
      const res = await run.api('/api/v2/ai/content/generate', {
        body: { prompt: 'are you back?', model: 'builtin', max_length: 10 },
      });
      if (res.status === 200) break;
      await sleep(50);
    }
    const served = Date.now() - started;
    await waitFor(() => submitted.every((id) => delivered().has(id)), 120_000);
    const drainedMs = Date.now() - started;
    process.stdout.write(
      `      content restart with ${pending} of ${submitted.length} async requests pending: SERVING after ${healthMs} ms, ` +
        `first 200 through the gateway after ${served} ms, all callbacks after ${drainedMs} ms\n`,
    );
    expect(pending).to.equal(submitted.length);
    for (const id of submitted) {
      const ids = new Set(
        receiver.calls.filter((c) => c.body?.requestId === id).map((c) => c.headers['webhook-id']),
      );
      expect(ids.size, `callbacks of ${id}`).to.equal(1);
      const status = await run.api(`/api/v2/requests/${id}`);
      expect(status.body.status, id).to.equal('completed');
    }
  });

  it('brings every other component back serving within seconds after kill -9 (times printed)', async () => {
    // One call per component that needs it, through the gateway.
    const probes: Record<
      'notification' | 'assistant' | 'recommendation' | 'gateway',
      () => Promise<number>
    > = {
      notification: async () => (await run.api('/api/webhooks')).status,
      assistant: async () =>
        (
          await run.api('/api/v2/ai/assistants/chat', {
            body: {
              user_id: 'u1',
              session_id: `s-${Date.now()}`,
              messages: [{ role: 'user', content: 'hello' }],
            },
          })
        ).status,
      recommendation: async () =>
        (
          await run.api('/api/v2/ai/recommendations', {
            body: { userId: 'u1', catalog: 'ecommerce', numRecommendations: 3 },
          })
        ).status,
      gateway: async () => (await run.api('/api/v2/models').catch(() => ({ status: 0 }))).status,
    };
    const times: string[] = [];
    for (const [name, probe] of Object.entries(probes) as Array<
      [keyof typeof probes, () => Promise<number>]
    >) {
      expect(await probe(), `${name} before the kill`).to.equal(200);
      await run.stack.stop(name, 'SIGKILL');
      const started = Date.now();
      await run.stack.start(name);
      const ready = Date.now() - started;
      while ((await probe()) !== 200) await sleep(50);
      times.push(`${name} ready ${ready} ms, first 200 ${Date.now() - started} ms`);
    }
    process.stdout.write(`      after kill -9: ${times.join('; ')}\n`);
  });

  it('restarts a crashed component by itself (supervision), and again after a second crash', async () => {
    for (let crash = 1; crash <= 2; crash++) {
      const pid = run.stack.pidOf('recommendation')!;
      process.kill(pid, 'SIGKILL'); // a crash: not through the stack
      await waitFor(
        () =>
          run.stack.pidOf('recommendation') !== undefined &&
          run.stack.pidOf('recommendation') !== pid,
        30_000,
      );
      await waitFor(
        async () =>
          (await checkHealth(
            run.stack.address('recommendation'),
            SERVICE_NAMES.RecommendationService,
          )) === 'SERVING',
        30_000,
      );
    }
    const res = await run.api('/api/v2/ai/recommendations', {
      body: { userId: 'u1', catalog: 'ecommerce', numRecommendations: 3 },
    });
    expect(res.status, res.text).to.equal(200);
  });

  it('keeps a hard quota when Redis is wiped mid-run (and the ledger is down): overshoot at most the calls in flight', async () => {
    const QUOTA = 3000;
    const CONCURRENCY = 8;
    const admin = (path: string, body: unknown) =>
      callApi(run.stack.gatewayUrl, '', path, {
        body,
        key: null,
        headers: { 'x-admin-token': ADMIN_TOKEN },
      });
    const id = `wipe-${Date.now().toString(36)}`; // unique per run: quota counters live in Redis
    const org = await admin('/api/v2/admin/organizations', {
      id,
      name: 'Redis wipe',
      monthlyTokenQuota: QUOTA,
      hardQuota: true,
      rateLimits: { requestsPerMinute: 1_000_000, tokensPerMinute: 1_000_000_000 },
    });
    expect(org.status, org.text).to.equal(201);
    const key = await admin(`/api/v2/admin/organizations/${id}/keys`, { name: 'proof' });
    expect(key.status, key.text).to.equal(201);
    const call = () =>
      callApi(run.stack.gatewayUrl, key.body.key, '/api/v2/ai/content/generate', {
        body: { prompt: 'Quota under a wipe', model: 'builtin', max_length: 20 },
      });

    let servedTokens = 0;
    let largestCall = 0;
    const statuses = new Map<number, number>();
    let refusedInARow = 0;
    let wiped = false;
    const caller = async () => {
      while (refusedInARow < 20) {
        const res = await call();
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        if (res.status === 200) {
          const tokens = res.body.usage.tokens_input + res.body.usage.tokens_output;
          servedTokens += tokens;
          largestCall = Math.max(largestCall, tokens);
          refusedInARow = 0;
        } else if (res.status === 429 && wiped) refusedInARow++;
        else await sleep(20);
      }
    };
    const load = Promise.all(Array.from({ length: CONCURRENCY }, () => caller()));
    await waitFor(() => servedTokens >= QUOTA / 2, 60_000).catch((error: Error) => {
      throw new Error(`${error.message}; answers so far ${JSON.stringify([...statuses])}`);
    });
    // The ledger cannot help the rebuild: notification is down while Redis loses everything.
    await run.stack.stop('notification', 'SIGKILL');
    const redis = new Redis(process.env.REDIS_URL!);
    try {
      await redis.flushall();
    } finally {
      redis.disconnect();
    }
    wiped = true;
    await load;
    await run.stack.start('notification');
    const overshoot = servedTokens - QUOTA;
    process.stdout.write(
      `      hard quota ${QUOTA} with Redis wiped at ~${QUOTA / 2}: served ${servedTokens} tokens (overshoot ${Math.max(0, overshoot)}, ` +
        `bound ${CONCURRENCY} calls in flight x ${largestCall} = ${CONCURRENCY * largestCall}); answers ${JSON.stringify([...statuses])}\n`,
    );
    expect(servedTokens).to.be.at.most(QUOTA + CONCURRENCY * largestCall);
    expect(statuses.get(429)).to.be.greaterThan(0);
  });
});
