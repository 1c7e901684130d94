import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { waitFor } from '@switchyard/shared/testing';
import {
  realInfrastructure,
  startStack,
  STACK_SIGNING_SECRET,
  type RunningStack,
} from '../support/stack';
import { WebhookReceiver } from '../support/receiver';
import { verifyWithStandardWebhooks } from '../support/signatures';
import { TopicReader } from '../support/topic-reader';

const INFRA_SCRIPT = path.resolve(__dirname, '..', '..', '..', 'deploy', 'local', 'infra.sh');

/**
 * The distributed mode's promises, proven on real Kafka, MongoDB and Redis with every component
 * in its own process: results travel through Kafka, and nothing is lost when a service or Kafka
 * restarts.
 */
describe('distributed: proofs on real infrastructure', function () {
  this.timeout(180_000);
  let run: RunningStack;
  let receiver: WebhookReceiver;

  before(async function () {
    if (!realInfrastructure()) this.skip();
    run = await startStack();
  });

  beforeEach(async () => {
    receiver = await new WebhookReceiver().start();
  });

  afterEach(async function () {
    await receiver?.stop();
    // A failed proof shows what the processes logged (warnings and errors) to explain it.
    if (this.currentTest?.state === 'failed' && run)
      process.stderr.write(`${run.log.slice(-80).join('\n')}\n`);
  });

  after(async () => {
    await run?.stack.stopAll();
  });

  it('delivers a generate call with webhookUrl, signed, through Kafka', async () => {
    const res = await run.api('/api/v2/ai/content/generate', {
      body: { prompt: 'Distributed hello', webhookUrl: receiver.url },
    });
    expect(res.status, res.text).to.equal(202);
    const call = await waitFor(() => receiver.calls[0], 30_000);
    verifyWithStandardWebhooks(STACK_SIGNING_SECRET, call);
    expect(call.body.requestId).to.equal(res.body.requestId);
    expect(call.body.result).to.be.a('string').and.not.empty;
    // The delivery is recorded once the receiver's 2xx is back, a moment after the receiver saw the call.
    await waitFor(
      async () =>
        (await run.api(`/api/v2/requests/${res.body.requestId}`)).body.status === 'completed',
      10_000,
    );
  });

  it('loses no event and no delivery when the notification service is killed with work queued', async () => {
    // Pending retries at kill time: the receiver fails the first attempt of every delivery.
    const attemptsById = new Map<string, number>();
    const delivered = new Set<string>();
    receiver.respondWith((call) => {
      const id = String(call.headers['webhook-id']);
      const n = (attemptsById.get(id) ?? 0) + 1;
      attemptsById.set(id, n);
      if (n === 1) return { status: 503 };
      delivered.add(String(call.body.requestId ?? `data:${call.body.count}:${call.body.id}`));
      return { status: 200 };
    });
    const hook = await run.api('/api/webhooks', {
      body: { event: 'data_updated', url: receiver.url },
    });
    expect(hook.status, hook.text).to.equal(201);
    const callbacks = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        run.api('/api/v2/ai/content/generate', {
          body: { prompt: `before ${i}`, webhookUrl: receiver.url },
        }),
      ),
    );
    for (const res of callbacks) expect(res.status, res.text).to.equal(202);
    await waitFor(() => attemptsById.size >= 1, 30_000);
    await run.stack.stop('notification', 'SIGKILL');

    // Events queued in Kafka while no notification service consumes them.
    for (let i = 0; i < 5; i++) {
      const res = await run.api('/api/v2/catalog/items', {
        body: { items: [{ itemId: `queued-${i}`, catalog: 'ecommerce', title: `Queued ${i}` }] },
      });
      expect(res.status, res.text).to.equal(200);
    }
    await run.stack.start('notification');

    const expectedCallbacks = callbacks.map((r) => r.body.requestId as string);
    await waitFor(() => expectedCallbacks.every((id) => delivered.has(id)), 60_000);
    await waitFor(
      () =>
        receiver.calls.filter(
          (c) =>
            c.body.event === 'data_updated' &&
            attemptsById.get(String(c.headers['webhook-id']))! >= 2,
        ).length >= 5,
      60_000,
    );
    // Each callback and each data event arrived under one webhook-id: duplicates only as its retries.
    for (const id of expectedCallbacks) {
      const ids = new Set(
        receiver.calls.filter((c) => c.body.requestId === id).map((c) => c.headers['webhook-id']),
      );
      expect(ids.size, `webhook-ids for ${id}`).to.equal(1);
    }
    const dataEvents = new Map<string, Set<unknown>>();
    for (const call of receiver.calls.filter((c) => c.body.event === 'data_updated')) {
      const ids = dataEvents.get(call.body.id) ?? new Set();
      ids.add(call.headers['webhook-id']);
      dataEvents.set(call.body.id, ids);
    }
    expect(dataEvents.size).to.equal(5);
    for (const ids of dataEvents.values()) expect(ids.size).to.equal(1);
    await run.api(`/api/webhooks/${hook.body.id}`, { method: 'DELETE' });
  });

  it('loses no usage event when the content service restarts mid-load', async () => {
    const reader = await new TopicReader(`${run.topicPrefix}switchyard.usage.v1`).start();
    try {
      const results: Array<{ status: number; requestId?: string }> = [];
      let restarted = false;
      let afterRestart = 0;
      const load = (async () => {
        // Two concurrent callers keep calling until 10 calls succeeded after the restart.
        const caller = async (name: string) => {
          for (let i = 0; afterRestart < 10 && i < 2000; i++) {
            const res = await run.api('/api/v2/ai/content/generate', {
              body: { prompt: `load ${name} ${i}`, max_length: 30 },
            });
            results.push({ status: res.status, requestId: res.body?.request_id });
            if (restarted && res.status === 200) afterRestart++;
            if (res.status !== 200) await new Promise((resolve) => setTimeout(resolve, 20));
          }
        };
        await Promise.all([caller('a'), caller('b')]);
      })();
      await waitFor(() => results.length >= 10, 30_000);
      await run.stack.stop('content', 'SIGTERM');
      await run.stack.start('content');
      restarted = true;
      await load;
      const succeeded = results.filter((r) => r.status === 200).map((r) => r.requestId!);
      expect(afterRestart).to.be.at.least(10);
      for (const r of results)
        expect(r.status, 'a call failed other than by the restart').to.be.oneOf([200, 503]);
      await waitFor(() => {
        const recorded = new Set(
          reader.events
            .filter((e) => e.type === 'usage.recorded')
            .map((e) => (e.data as { requestId: string }).requestId),
        );
        return succeeded.every((id) => recorded.has(id));
      }, 30_000);
    } finally {
      await reader.stop();
    }
  });

  it('loses nothing acknowledged to a caller when Kafka restarts while producers publish', async function () {
    if (!process.env.SWITCHYARD_LOCAL_INFRA) this.skip(); // needs the local broker it can restart
    this.timeout(300_000);
    const reader = await new TopicReader(`${run.topicPrefix}switchyard.data.v1`).start();
    try {
      const acknowledged: number[] = [];
      const refusals = new Map<string, number>();
      let stop = false;
      const producer = (async () => {
        for (let i = 0; !stop; i++) {
          const res = await run
            .api('/api/v2/catalog/items', {
              body: {
                items: [
                  { itemId: `k${i}`, catalog: 'ecommerce', title: `Kafka restart item ${i}` },
                ],
              },
              timeoutMs: 40_000,
            })
            .catch((error: Error) => ({ status: 0, body: { error: { code: error.name } } }));
          if (res.status === 200) acknowledged.push(i);
          else {
            refusals.set(
              `${res.status} ${res.body?.error?.code}`,
              (refusals.get(`${res.status} ${res.body?.error?.code}`) ?? 0) + 1,
            );
            await new Promise((resolve) => setTimeout(resolve, 50));
          }
        }
      })();
      await waitFor(() => acknowledged.length >= 5, 30_000);
      execFileSync('bash', [INFRA_SCRIPT, 'restart-kafka'], { stdio: 'ignore' });
      const afterRestart = acknowledged.length;
      // A send caught by the restart may wait out its request timeout before the producer recovers.
      await waitFor(() => acknowledged.length >= afterRestart + 5, 150_000).catch(
        (error: Error) => {
          throw new Error(`${error.message}; refusals: ${JSON.stringify([...refusals])}`);
        },
      );
      stop = true;
      await producer;
      if (process.env.STACK_LOG_LEVEL)
        process.stderr.write(
          `refusals during the Kafka restart: ${JSON.stringify([...refusals])}\n`,
        );
      expect(acknowledged.length).to.be.greaterThan(10);
      // Each acknowledged upsert published one data.updated event; none of them may be missing.
      await waitFor(
        () => reader.events.filter((e) => e.type === 'data.updated').length >= acknowledged.length,
        60_000,
      );
    } finally {
      await reader.stop();
    }
  });

  it('keeps state written before a full restart of every service', async () => {
    const hook = await run.api('/api/webhooks', {
      body: { event: 'invoice_paid', url: receiver.url },
    });
    expect(hook.status, hook.text).to.equal(201);
    const item = await run.api('/api/v2/catalog/items', {
      body: { items: [{ itemId: 'persist-me', catalog: 'education', title: 'Durable course' }] },
    });
    expect(item.status).to.equal(200);
    await run.api('/api/v2/interactions', {
      body: { interactions: [{ userId: 'p1', itemId: 'persist-me', type: 'view' }] },
    });
    const chat = await run.api('/api/v2/ai/assistants/support', {
      body: {
        user_id: 'p1',
        session_id: 'persist-session',
        messages: [{ role: 'user', content: 'My order number is 77123 and it is late' }],
      },
    });
    expect(chat.status).to.equal(200);
    const async = await run.api('/api/v2/ai/content/generate', {
      body: { prompt: 'persist', webhookUrl: receiver.url },
    });
    // Completed before the restart: its callback delivered and recorded (the receiver seeing the
    // callback comes before the delivery is recorded, which the restart could cut off).
    await waitFor(
      async () =>
        (await run.api(`/api/v2/requests/${async.body.requestId}`)).body.status === 'completed',
      30_000,
    );

    await run.stack.stopAll();
    await run.stack.startAll();

    const hooks = await run.api('/api/webhooks');
    expect(hooks.body.webhooks.map((w: { id: string }) => w.id)).to.include(hook.body.id);
    const got = await run.api('/api/v2/catalog/items/persist-me');
    expect(got.status).to.equal(200);
    expect(got.body.title).to.equal('Durable course');
    const status = await run.api(`/api/v2/requests/${async.body.requestId}`);
    expect(status.body.status).to.equal('completed');
    const again = await run.api('/api/v2/ai/assistants/support', {
      body: {
        user_id: 'p1',
        session_id: 'persist-session',
        messages: [{ role: 'user', content: 'Any news on the shipping status?' }],
      },
    });
    expect(again.body.reply).to.include('77123');
    const deliveries = await run.api(`/api/webhooks/${hook.body.id}/deliveries`);
    expect(deliveries.status).to.equal(200);
  });
});
