import { expect } from 'chai';
import { waitFor } from '@switchyard/shared/testing';
import { api } from '../support/http';
import { mesh } from '../support/mesh';
import { WebhookReceiver } from '../support/receiver';
import { verifyWithStandardWebhooks } from '../support/signatures';

describe('e2e: webhooks and asynchronous results', () => {
  let receiver: WebhookReceiver;

  beforeEach(async () => {
    receiver = await new WebhookReceiver().start();
  });

  afterEach(async () => {
    await receiver.stop();
  });

  it('acknowledges a generate call with webhookUrl (202) and POSTs the signed result', async () => {
    const { signingSecret } = await mesh();
    const res = await api('/api/v2/ai/content/generate', {
      body: { prompt: 'A short note about our new store opening', webhookUrl: receiver.url },
    });
    expect(res.status).to.equal(202);
    expect(res.body).to.deep.equal({
      status: 'processing',
      requestId: res.headers.get('x-request-id'),
    });

    const call = await waitFor(() => receiver.calls[0], 10_000);
    verifyWithStandardWebhooks(signingSecret, call);
    expect(call.body).to.include.keys('requestId', 'result', 'model', 'usage');
    expect(call.body.requestId).to.equal(res.body.requestId);
    expect(call.body.result).to.be.a('string').and.not.empty;
    expect(call.body.model).to.equal('builtin');
    expect(call.body.usage.totalTokens).to.be.a('number').greaterThan(0);
    expect(call.body).to.not.have.key('status');

    const status = await api(`/api/v2/requests/${res.body.requestId}`);
    expect(status.status).to.equal(200);
    expect(status.body.status).to.equal('completed');
    expect(status.body.requestId).to.equal(res.body.requestId);
  });

  it('retries a failing receiver with the same webhook-id', async () => {
    receiver.respondWith((_call, index) => (index < 2 ? { status: 500 } : { status: 200 }));
    const res = await api('/api/v2/ai/content/generate', {
      body: { prompt: 'Retry me', webhookUrl: receiver.url },
    });
    expect(res.status).to.equal(202);
    await waitFor(() => receiver.calls.length >= 3, 10_000);
    const ids = new Set(receiver.calls.map((c) => c.headers['webhook-id']));
    expect(ids.size).to.equal(1);
  });

  it("serves the delivery metrics on the gateway's /metrics in embedded mode", async () => {
    receiver.respondWith((_call, index) => (index === 0 ? { status: 503 } : { status: 200 }));
    const res = await api('/api/v2/ai/content/generate', {
      body: { prompt: 'Count my attempts', webhookUrl: receiver.url },
    });
    expect(res.status).to.equal(202);
    await waitFor(() => receiver.calls.length >= 2, 10_000);
    const metrics = await api('/metrics', { key: null });
    expect(metrics.status).to.equal(200);
    expect(metrics.text).to.match(
      /notification_webhook_attempts_total\{outcome="succeeded"\} [1-9]/,
    );
    expect(metrics.text).to.match(/notification_webhook_failures_total\{reason="http_5xx"\} [1-9]/);
    expect(metrics.text).to.match(/notification_event_to_first_attempt_seconds_count [1-9]/);
    for (const gauge of [
      'notification_pending_deliveries',
      'notification_queued_attempts',
      'notification_disabled_webhooks',
    ]) {
      expect(metrics.text).to.match(new RegExp(`^${gauge} \\d+$`, 'm'));
    }
  });

  it('registers a webhook (201, secret once) and lists it', async () => {
    const res = await api('/api/webhooks', { body: { event: 'data_updated', url: receiver.url } });
    expect(res.status, res.text).to.equal(201);
    expect(res.body.id).to.be.a('string');
    expect(res.body.event).to.equal('data_updated');
    expect(res.body.url).to.equal(receiver.url);
    expect(res.body.secret).to.match(/^whsec_/);
    const list = await api('/api/webhooks');
    const listed = list.body.webhooks.find((w: { id: string }) => w.id === res.body.id);
    expect(listed).to.exist;
    expect(listed).to.not.have.key('secret');

    // Ingesting catalog data emits data_updated, delivered signed with the webhook's own secret.
    await api('/api/v2/catalog/items', {
      body: { items: [{ itemId: 'wh-item', catalog: 'education', title: 'Intro course' }] },
    });
    const call = await waitFor(
      () => receiver.calls.find((c) => c.body?.event === 'data_updated'),
      10_000,
    );
    verifyWithStandardWebhooks(res.body.secret, call);
    expect(call.body).to.include({ event: 'data_updated', organization: 'dev' });
    expect(call.body.count).to.be.a('number');

    const deleted = await api(`/api/webhooks/${res.body.id}`, { method: 'DELETE' });
    expect(deleted.status).to.equal(204);
  });

  it('registers one URL for several events (events: [...]) and delivers each of them to it', async () => {
    const res = await api('/api/webhooks', {
      body: { events: ['data_updated', 'support_escalated'], url: receiver.url },
    });
    expect(res.status, res.text).to.equal(201);
    expect(res.body.events).to.deep.equal(['data_updated', 'support_escalated']);
    expect(res.body.event).to.equal('data_updated');
    await api('/api/v2/catalog/items', {
      body: { items: [{ itemId: 'multi-item', catalog: 'education', title: 'Course' }] },
    });
    const call = await waitFor(
      () => receiver.calls.find((c) => c.body?.event === 'data_updated'),
      10_000,
    );
    verifyWithStandardWebhooks(res.body.secret, call);
    await api(`/api/webhooks/${res.body.id}`, { method: 'DELETE' });
  });

  it('refuses a registration with both event and events, or with neither, naming the field', async () => {
    const both = await api('/api/webhooks', {
      body: { event: 'data_updated', events: ['data_updated'], url: receiver.url },
    });
    expect(both.status).to.equal(400);
    expect(both.body.error.details[0].field).to.equal('/events');
    const neither = await api('/api/webhooks', { body: { url: receiver.url } });
    expect(neither.status).to.equal(400);
    expect(neither.body.error.details[0].field).to.equal('/event');
    const badEvents = await api('/api/webhooks', { body: { events: ['nope'], url: receiver.url } });
    expect(badEvents.status).to.equal(400);
    expect(badEvents.body.error.details[0].field).to.equal('/events/0');
  });

  it('rejects an unknown event type and a malformed URL', async () => {
    const badEvent = await api('/api/webhooks', { body: { event: 'nope', url: receiver.url } });
    expect(badEvent.status).to.equal(400);
    expect(badEvent.body.error.details[0].field).to.equal('/event');
    const badUrl = await api('/api/webhooks', {
      body: { event: 'invoice_paid', url: 'not a url' },
    });
    expect(badUrl.status).to.equal(400);
    expect(badUrl.body.error.details[0].field).to.equal('/url');
  });

  it('sends a signed test event of one of the webhook events, refusing any other', async () => {
    const hook = await api('/api/webhooks', {
      body: { events: ['invoice_paid', 'invoice_failed'], url: receiver.url },
    });
    expect(hook.status, hook.text).to.equal(201);
    const sent = await api(`/api/webhooks/${hook.body.id}/test`, {
      body: { event: 'invoice_failed' },
    });
    expect(sent.status, sent.text).to.equal(200);
    expect(sent.body).to.include({ webhookId: hook.body.id, event: 'invoice_failed' });
    const call = await waitFor(() => receiver.calls[0], 10_000);
    verifyWithStandardWebhooks(hook.body.secret, call);
    expect(call.body).to.include({ event: 'invoice_failed', organization: 'dev', test: true });
    expect(call.body.id).to.equal(sent.body.eventId);

    const other = await api(`/api/webhooks/${hook.body.id}/test`, {
      body: { event: 'data_updated' },
    });
    expect(other.status).to.equal(400);
    expect(other.body.error.code).to.equal('invalid_request');
    const unknown = await api('/api/webhooks/wh_missing/test', { body: {} });
    expect(unknown.status).to.equal(404);
    await api(`/api/webhooks/${hook.body.id}`, { method: 'DELETE' });
  });

  it('filters the delivery log by state, event and event id, and replays several deliveries', async () => {
    let healthy = false;
    receiver.respondWith(() =>
      healthy ? { status: 200, body: 'ok' } : { status: 500, body: 'receiver down' },
    );
    const hook = await api('/api/webhooks', {
      body: { events: ['invoice_paid', 'invoice_failed'], url: receiver.url },
    });
    const deliveriesOf = async (query = '') => {
      const res = await api(`/api/webhooks/${hook.body.id}/deliveries${query}`);
      expect(res.status, res.text).to.equal(200);
      return res.body.deliveries as any[];
    };
    const first = await api(`/api/webhooks/${hook.body.id}/test`, {
      body: { event: 'invoice_paid' },
    });
    const second = await api(`/api/webhooks/${hook.body.id}/test`, {
      body: { event: 'invoice_failed' },
    });
    // Every attempt (the schedule's four) answered 500: both deliveries end failed.
    const failed = await waitFor(async () => {
      const found = await deliveriesOf('?status=failed');
      return found.length === 2 ? found : undefined;
    }, 10_000);
    expect(failed.map((d) => d.id)).to.deep.equal([second.body.id, first.body.id]);
    expect(failed[0].attempts).to.have.length(4);
    expect(failed[0].attempts[0]).to.include({ statusCode: 500, responseBody: 'receiver down' });
    expect(await deliveriesOf('?status=succeeded')).to.deep.equal([]);
    expect((await deliveriesOf('?event=invoice_paid')).map((d) => d.id)).to.deep.equal([
      first.body.id,
    ]);
    expect(
      (await deliveriesOf(`?eventId=${encodeURIComponent(second.body.eventId)}`)).map((d) => d.id),
    ).to.deep.equal([second.body.id]);
    const badFilter = await api(`/api/webhooks/${hook.body.id}/deliveries?status=lost`);
    expect(badFilter.status).to.equal(400);

    healthy = true;
    const replayed = await api(`/api/webhooks/${hook.body.id}/deliveries/replay`, {
      body: { deliveryIds: [first.body.id, 'dlv_not_there', second.body.id] },
    });
    expect(replayed.status, replayed.text).to.equal(200);
    expect(replayed.body.deliveries).to.have.length(2);
    expect(replayed.body.failed).to.deep.equal([
      { deliveryId: 'dlv_not_there', error: replayed.body.failed[0].error },
    ]);
    expect(replayed.body.failed[0].error.code).to.equal('not_found');
    const succeeded = await waitFor(async () => {
      const found = await deliveriesOf('?status=succeeded');
      return found.length === 2 ? found : undefined;
    }, 10_000);
    // The replays carry the original events (same id, same body), delivered once each.
    expect(succeeded.map((d) => d.eventId).sort()).to.deep.equal(
      [first.body.eventId, second.body.eventId].sort(),
    );
    await api(`/api/webhooks/${hook.body.id}`, { method: 'DELETE' });
  });

  it('says a delivery is failing after its first failed attempt, cancels its retries and counts its success rate', async () => {
    // In maintenance: 503 with Retry-After an hour, so the retry waits that long.
    receiver.respondWith(() => ({
      status: 503,
      body: 'maintenance window',
      headers: { 'retry-after': '3600' },
    }));
    const hook = await api('/api/webhooks', {
      body: { events: ['invoice_paid'], url: receiver.url },
    });
    expect(hook.status, hook.text).to.equal(201);
    const base = `/api/webhooks/${hook.body.id}`;
    const sent = await api(`${base}/test`, { body: { event: 'invoice_paid' } });
    const call = await waitFor(() => receiver.calls[0], 10_000);
    const failing = await waitFor(async () => {
      const res = await api(`${base}/deliveries?state=failing`);
      return res.body.deliveries[0];
    }, 10_000);
    expect(failing).to.include({ id: sent.body.id, status: 'pending', state: 'failing' });
    expect(Date.parse(failing.nextAttemptAt) - Date.now()).to.be.greaterThan(3_000_000);
    // The payload as sent and signed, byte for byte.
    expect(failing.payload).to.equal(call.rawBody);
    expect(JSON.parse(failing.payload)).to.include({ event: 'invoice_paid', test: true });
    await waitFor(async () => (await api(base)).body.failingSince, 10_000);
    const stats = await api(`${base}/stats`);
    expect(stats.status, stats.text).to.equal(200);
    expect(stats.body).to.include({ failing: 1, succeeded: 0, successRate: 0 });

    const cancelled = await api(`${base}/deliveries/${sent.body.id}/cancel`, { body: {} });
    expect(cancelled.status, cancelled.text).to.equal(200);
    expect(cancelled.body).to.include({
      status: 'failed',
      state: 'cancelled',
      nextAttemptAt: null,
    });
    expect(cancelled.body.cancelledAt).to.be.a('string');
    const again = await api(`${base}/deliveries/${sent.body.id}/cancel`, { body: {} });
    expect(again.status).to.equal(409);
    expect(again.body.error.code).to.equal('conflict');
    const unknown = await api(`${base}/deliveries/dlv_not_there/cancel`, { body: {} });
    expect(unknown.status).to.equal(404);
    expect(
      (await api(`${base}/deliveries?state=cancelled`)).body.deliveries.map((d: any) => d.id),
    ).to.deep.equal([sent.body.id]);
    expect((await api(`${base}/deliveries?state=failing`)).body.deliveries).to.deep.equal([]);

    // A delivery that gets through: the success rate counts it, cancelled ones are left out.
    receiver.respondWith(() => ({ status: 200, body: 'ok' }));
    await api(`${base}/test`, { body: { event: 'invoice_paid' } });
    await waitFor(async () => (await api(`${base}/stats`)).body.succeeded === 1, 10_000);
    expect((await api(`${base}/stats`)).body).to.include({
      succeeded: 1,
      cancelled: 1,
      failing: 0,
      successRate: 1,
    });
    // Date ranges: nothing was created before the webhook, both after it.
    const created = encodeURIComponent(hook.body.createdAt);
    expect((await api(`${base}/deliveries?until=${created}`)).body.deliveries).to.deep.equal([]);
    expect((await api(`${base}/deliveries?since=${created}`)).body.deliveries).to.have.length(2);
    expect((await api(`${base}/stats?until=${created}`)).body.successRate).to.equal(null);
    expect((await api(`${base}/deliveries?since=yesterday`)).status).to.equal(400);
    await api(base, { method: 'DELETE' });
  });

  it('reports 404 for an unknown request id', async () => {
    const res = await api('/api/v2/requests/req_doesnotexist');
    expect(res.status).to.equal(404);
    expect(res.body.error.code).to.equal('not_found');
  });
});
