import { expect } from 'chai';
import { createEvent } from '@switchyard/shared';
import { silentLogger, waitFor } from '@switchyard/shared/testing';
import { startEmbeddedMesh, type EmbeddedMesh } from '@switchyard/embedded';
import { callApi, type ApiOptions } from '../support/http';
import { E2E_ENV } from '../support/mesh';
import { WebhookReceiver } from '../support/receiver';
import { verifyWithStandardWebhooks } from '../support/signatures';

/**
 * Every event type reaches the webhooks registered for it, signed, with the bodies of
 * contract-decisions.md; plus the delivery log, retries and 410. Its own mesh, with a small
 * quota so the usage thresholds are crossed by a few calls.
 */
describe('e2e: webhook events, deliveries and policies', function () {
  this.timeout(60_000);
  let mesh: EmbeddedMesh;
  let receiver: WebhookReceiver;
  const api = (path: string, options?: ApiOptions) =>
    callApi(mesh.gatewayUrl, mesh.apiKey, path, options);

  async function register(
    event: string,
    url = receiver.url,
  ): Promise<{ id: string; secret: string }> {
    const res = await api('/api/webhooks', { body: { event, url } });
    expect(res.status, res.text).to.equal(201);
    return res.body;
  }

  before(async () => {
    mesh = await startEmbeddedMesh(
      {
        ...E2E_ENV,
        DEV_MONTHLY_TOKEN_QUOTA: '400',
        DEV_HARD_QUOTA: 'false',
        USAGE_THRESHOLD_SHARES: '0.9,1.0',
      },
      silentLogger(),
    );
  });

  after(async () => {
    await mesh?.stop();
  });

  beforeEach(async () => {
    receiver = await new WebhookReceiver().start();
  });

  afterEach(async () => {
    const list = await api('/api/webhooks');
    for (const hook of list.body.webhooks ?? [])
      await api(`/api/webhooks/${hook.id}`, { method: 'DELETE' });
    await receiver.stop();
  });

  it('delivers invoice_paid and invoice_failed published by billing on the bus', async () => {
    const paid = await register('invoice_paid');
    const failed = await register('invoice_failed');
    await mesh.bus.publish(
      createEvent('invoice.paid', {
        source: 'billing',
        organization: 'dev',
        data: { invoiceId: 'inv_1', amount: 120.5, currency: 'EUR' },
      }),
    );
    await mesh.bus.publish(
      createEvent('invoice.failed', {
        source: 'billing',
        organization: 'dev',
        data: { invoiceId: 'inv_2', amount: 99, currency: 'EUR', failureReason: 'card_declined' },
      }),
    );
    await waitFor(() => receiver.calls.length >= 2, 10_000);
    const paidCall = receiver.calls.find((c) => c.body.event === 'invoice_paid')!;
    const failedCall = receiver.calls.find((c) => c.body.event === 'invoice_failed')!;
    verifyWithStandardWebhooks(paid.secret, paidCall);
    verifyWithStandardWebhooks(failed.secret, failedCall);
    expect(paidCall.body).to.include({
      event: 'invoice_paid',
      organization: 'dev',
      invoiceId: 'inv_1',
      amount: 120.5,
      currency: 'EUR',
    });
    expect(failedCall.body).to.include({
      event: 'invoice_failed',
      invoiceId: 'inv_2',
      failureReason: 'card_declined',
    });
  });

  it('sends exactly one usage_threshold per crossed share, with usage and threshold in tokens', async () => {
    const hook = await register('usage_threshold');
    for (let i = 0; i < 12; i++) {
      const res = await api('/api/v2/ai/content/generate', {
        body: { prompt: `Threshold call number ${i}`, max_length: 40 },
      });
      expect(res.status).to.equal(200);
    }
    await waitFor(
      () => receiver.calls.filter((c) => c.body.event === 'usage_threshold').length >= 2,
      10_000,
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    const calls = receiver.calls.filter((c) => c.body.event === 'usage_threshold');
    expect(calls.map((c) => c.body.threshold).sort((a, b) => a - b)).to.deep.equal([360, 400]);
    for (const call of calls) {
      verifyWithStandardWebhooks(hook.secret, call);
      expect(call.body).to.include.keys('event', 'organization', 'usage', 'threshold');
      expect(call.body.organization).to.equal('dev');
      expect(call.body.usage).to.be.a('number').at.least(call.body.threshold);
    }
  });

  it('delivers request_completed to the registered default result URL for a generate without webhookUrl', async () => {
    const hook = await register('request_completed');
    const res = await api('/api/v2/ai/content/generate', {
      body: { prompt: 'Default URL please' },
    });
    expect(res.status).to.equal(202);
    const call = await waitFor(
      () => receiver.calls.find((c) => c.body.requestId === res.body.requestId),
      10_000,
    );
    verifyWithStandardWebhooks(hook.secret, call);
    expect(call.body.result).to.be.a('string').and.not.empty;
  });

  it('retries a receiver that fails twice with the same webhook-id and logs three attempts', async () => {
    receiver.respondWith((_c, index) => ({
      status: index < 2 ? 500 : 200,
      body: index < 2 ? 'boom' : 'ok',
    }));
    const hook = await register('data_updated');
    await api('/api/v2/catalog/items', {
      body: { items: [{ itemId: 'r1', catalog: 'ticketing', title: 'Concert' }] },
    });
    await waitFor(() => receiver.calls.length >= 3, 10_000);
    expect(new Set(receiver.calls.map((c) => c.headers['webhook-id'])).size).to.equal(1);
    const log = await waitFor(async () => {
      const res = await api(`/api/webhooks/${hook.id}/deliveries`);
      const delivery = res.body.deliveries?.[0];
      return delivery?.status === 'succeeded' ? delivery : undefined;
    }, 10_000);
    expect(log.attempts).to.have.length(3);
    expect(log.attempts.map((a: { statusCode: number }) => a.statusCode)).to.deep.equal([
      500, 500, 200,
    ]);
    expect(log.attempts[0].responseBody).to.equal('boom');
  });

  it('disables a webhook whose receiver answers 410 Gone', async () => {
    receiver.respondWith(() => ({ status: 410 }));
    const hook = await register('data_updated');
    await api('/api/v2/catalog/items', {
      body: { items: [{ itemId: 'g1', catalog: 'ticketing', title: 'Gone' }] },
    });
    const state = await waitFor(async () => {
      const res = await api(`/api/webhooks/${hook.id}`);
      return res.body.enabled === false ? res.body : undefined;
    }, 10_000);
    expect(state.disabledReason).to.be.a('string').and.not.empty;
  });

  it('replays a delivery', async () => {
    const hook = await register('data_updated');
    await api('/api/v2/catalog/items', {
      body: { items: [{ itemId: 'p1', catalog: 'education', title: 'Replay me' }] },
    });
    await waitFor(() => receiver.calls.length >= 1, 10_000);
    const deliveries = await api(`/api/webhooks/${hook.id}/deliveries`);
    const replay = await api(
      `/api/webhooks/${hook.id}/deliveries/${deliveries.body.deliveries[0].id}/replay`,
      { body: {} },
    );
    expect(replay.status, replay.text).to.equal(200);
    await waitFor(() => receiver.calls.length >= 2, 10_000);
    expect(receiver.calls[1]!.rawBody).to.equal(receiver.calls[0]!.rawBody);
  });

  it('rotates a webhook secret: both signatures are sent during the overlap', async () => {
    const hook = await register('data_updated');
    const rotated = await api(`/api/webhooks/${hook.id}/rotate-secret`, {
      body: { overlapSeconds: 3600 },
    });
    expect(rotated.status, rotated.text).to.equal(200);
    await api('/api/v2/catalog/items', {
      body: { items: [{ itemId: 'rot1', catalog: 'education', title: 'Rotation' }] },
    });
    const call = await waitFor(() => receiver.calls[0], 10_000);
    expect(String(call.headers['webhook-signature']).split(' ')).to.have.length(2);
    verifyWithStandardWebhooks(hook.secret, call);
    verifyWithStandardWebhooks(rotated.body.secret, call);
  });
});

describe('e2e: SSRF protection with private networks not allowed', function () {
  this.timeout(30_000);
  let mesh: EmbeddedMesh;
  const api = (path: string, options?: ApiOptions) =>
    callApi(mesh.gatewayUrl, mesh.apiKey, path, options);

  before(async () => {
    mesh = await startEmbeddedMesh(
      { ...E2E_ENV, WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'false', WEBHOOK_REQUIRE_HTTPS: 'false' },
      silentLogger(),
    );
  });

  after(async () => {
    await mesh?.stop();
  });

  for (const url of [
    'http://127.0.0.1:9/hook',
    'http://10.0.0.1/hook',
    'http://169.254.169.254/latest/meta-data',
    'http://[::1]/hook',
    'http://localhost/hook',
  ]) {
    it(`refuses ${url} at registration and as a webhookUrl`, async () => {
      const registration = await api('/api/webhooks', { body: { event: 'data_updated', url } });
      expect(registration.status).to.equal(400);
      expect(registration.body.error.details[0].field).to.equal('/url');
      const generate = await api('/api/v2/ai/content/generate', {
        body: { prompt: 'x', webhookUrl: url },
      });
      expect(generate.status).to.equal(400);
      expect(generate.body.error.details[0].field).to.equal('/webhookUrl');
    });
  }
});
