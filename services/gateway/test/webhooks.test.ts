import { expect } from 'chai';
import { startHarness, resetDoubles, type Harness } from './harness';
import { expectShape } from './shape';
import {
  DeliveryList,
  RegisteredWebhook,
  RotatedSecret,
  Webhook,
  WebhookList,
} from '../src/schemas/webhooks';

const NOW = '2026-11-21T15:04:47.184Z';
const webhookView = {
  id: 'wh_1',
  event: 'data_updated',
  events: ['data_updated', 'usage_threshold'],
  url: 'https://hooks.example.com/in',
  enabled: true,
  createdAt: NOW,
  updatedAt: NOW,
  disabledReason: null,
  failingSince: null,
  rateLimit: null,
};

describe('gateway webhook routes', () => {
  let h: Harness;
  before(async () => (h = await startHarness()));
  after(() => h.stop());
  afterEach(() => resetDoubles(h));

  it('POST /api/webhooks: 201 with the webhook and its secret (camelCase)', async () => {
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const reply = await h.send('POST', '/api/webhooks', {
      body: { event: 'usage_threshold', url: 'https://hooks.example.com/usage', secret },
    });
    expect(reply.status).to.equal(201);
    expect(reply.body).to.deep.equal({
      ...webhookView,
      event: 'usage_threshold',
      events: ['usage_threshold'],
      url: 'https://hooks.example.com/usage',
      secret,
    });
    expectShape(reply.body, RegisteredWebhook);
    expect(h.doubles.notification.last('RegisterWebhook').request).to.deep.equal({
      events: ['usage_threshold'],
      url: 'https://hooks.example.com/usage',
      secret,
      filter_json: '',
      rate_limit: 0,
    });
  });

  it('POST /api/webhooks validates event, url and secret', async () => {
    const reply = await h.send('POST', '/api/webhooks', {
      body: { event: 'invoice-paid', url: 'ftp://x', secret: 'plain' },
    });
    expect(reply.status).to.equal(400);
    expect(reply.body.error.details.map((d: { field: string }) => d.field)).to.have.members([
      '/event',
      '/url',
      '/secret',
    ]);
    expect(h.doubles.notification.calls).to.have.length(0);
  });

  it('GET /api/webhooks lists; GET /api/webhooks/:id reads one; no secret anywhere', async () => {
    const list = await h.send('GET', '/api/webhooks');
    expect(list.body).to.deep.equal({ webhooks: [webhookView] });
    expectShape(list.body, WebhookList);
    const one = await h.send('GET', '/api/webhooks/wh_7');
    expect(one.body).to.deep.equal({ ...webhookView, id: 'wh_7' });
    expectShape(one.body, Webhook);
    expect(h.doubles.notification.last('GetWebhook').request).to.deep.equal({ id: 'wh_7' });
  });

  it('PATCH /api/webhooks/:id passes only what changed (events_set marks a new event list)', async () => {
    const reply = await h.send('PATCH', '/api/webhooks/wh_1', { body: { enabled: false } });
    expect(reply.status).to.equal(200);
    expect(reply.body.enabled).to.equal(false);
    const request = h.doubles.notification.last('UpdateWebhook').request;
    expect(request).to.deep.include({ id: 'wh_1', enabled: false, events: [], events_set: false });
    expect(request.url).to.equal(undefined);

    const events = await h.send('PATCH', '/api/webhooks/wh_1', {
      body: { events: ['data_updated'], url: 'https://new.example.com/h' },
    });
    expect(events.body).to.include({ event: 'data_updated', url: 'https://new.example.com/h' });
    expect(h.doubles.notification.last('UpdateWebhook').request).to.deep.include({
      events: ['data_updated'],
      events_set: true,
      url: 'https://new.example.com/h',
    });
  });

  it('PATCH with an empty body is refused', async () => {
    const reply = await h.send('PATCH', '/api/webhooks/wh_1', { body: {} });
    expect(reply.status).to.equal(400);
  });

  it('DELETE /api/webhooks/:id answers 204', async () => {
    const reply = await h.send('DELETE', '/api/webhooks/wh_1');
    expect(reply.status).to.equal(204);
    expect(h.doubles.notification.last('DeleteWebhook').request).to.deep.equal({ id: 'wh_1' });
  });

  it('POST /api/webhooks/:id/rotate-secret passes overlapSeconds', async () => {
    const reply = await h.send('POST', '/api/webhooks/wh_1/rotate-secret', {
      body: { overlapSeconds: 3600 },
    });
    expect(reply.body).to.deep.equal({
      secret: 'whsec_rotatedrotatedrotatedrotated',
      previousSecretExpiresAt: NOW,
    });
    expectShape(reply.body, RotatedSecret);
    expect(h.doubles.notification.last('RotateWebhookSecret').request).to.deep.include({
      id: 'wh_1',
      overlap_seconds: 3600,
    });
    await h.send('POST', '/api/webhooks/wh_1/rotate-secret');
    expect(h.doubles.notification.last('RotateWebhookSecret').request.overlap_seconds).to.equal(
      undefined,
    );
  });

  it('GET /api/webhooks/:id/deliveries lists deliveries with attempts; limit comes from the query', async () => {
    const reply = await h.send('GET', '/api/webhooks/wh_1/deliveries?limit=5');
    expect(reply.status).to.equal(200);
    expect(reply.body).to.deep.equal({
      deliveries: [
        {
          id: 'dlv_1',
          webhookId: 'wh_1',
          eventId: 'evt_1',
          event: 'request_completed',
          status: 'failed',
          state: 'failed',
          cancelledAt: null,
          payload: '{"event":"request_completed"}',
          url: 'https://hooks.example.com/in',
          createdAt: NOW,
          nextAttemptAt: null,
          attempts: [
            {
              attemptedAt: NOW,
              statusCode: 500,
              durationMs: 120,
              responseBody: 'oops',
              error: null,
            },
            {
              attemptedAt: NOW,
              statusCode: null,
              durationMs: 3000,
              responseBody: '',
              error: 'timeout',
            },
          ],
        },
      ],
    });
    expectShape(reply.body, DeliveryList);
    expect(h.doubles.notification.last('ListDeliveries').request).to.deep.equal({
      webhook_id: 'wh_1',
      limit: 5,
      event_id: '',
      status: '',
      event: '',
      state: '',
      since: '',
      until: '',
    });
    await h.send(
      'GET',
      '/api/webhooks/wh_1/deliveries?status=failed&event=invoice_paid&eventId=evt_9',
    );
    expect(h.doubles.notification.last('ListDeliveries').request).to.deep.include({
      status: 'failed',
      event: 'invoice_paid',
      event_id: 'evt_9',
    });
    await h.send('GET', '/api/webhooks/wh_1/deliveries');
    expect(h.doubles.notification.last('ListDeliveries').request.limit).to.equal(20);
    const bad = await h.send('GET', '/api/webhooks/wh_1/deliveries?limit=0');
    expect(bad.status).to.equal(400);
    expect(bad.body.error.details[0].field).to.equal('/limit');
  });

  it('POST /api/webhooks/:id/deliveries/:deliveryId/replay', async () => {
    const reply = await h.send('POST', '/api/webhooks/wh_1/deliveries/dlv_9/replay');
    expect(reply.status).to.equal(200);
    expect(reply.body).to.include({ id: 'dlv_9', status: 'pending', nextAttemptAt: NOW });
    expect(h.doubles.notification.last('ReplayDelivery').request).to.deep.equal({
      webhook_id: 'wh_1',
      delivery_id: 'dlv_9',
    });
  });

  it('GET /api/webhooks/signing-secret and POST /api/webhooks/signing-secret/rotate (not taken for an id)', async () => {
    const secret = await h.send('GET', '/api/webhooks/signing-secret');
    expect(secret.body).to.deep.equal({
      secret: 'whsec_orgsecretorgsecretorgsecret',
      createdAt: NOW,
    });
    expect(h.doubles.notification.called('GetWebhook')).to.equal(0);
    const rotated = await h.send('POST', '/api/webhooks/signing-secret/rotate', {
      body: { overlapSeconds: 60 },
    });
    expect(rotated.body).to.deep.equal({
      secret: 'whsec_neworgsecretneworgsecret',
      previousSecretExpiresAt: NOW,
    });
    expect(h.doubles.notification.last('RotateSigningSecret').request).to.deep.include({
      overlap_seconds: 60,
    });
  });
});
