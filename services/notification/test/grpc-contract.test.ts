import { checkHealth, createEvent, SERVICE_NAMES, type AppError } from '@switchyard/shared';
import type {
  DeleteWebhookResponse__Output,
  Delivery__Output,
  ListDeliveriesResponse__Output,
  ListWebhooksResponse__Output,
  RegisterWebhookResponse__Output,
  RotateSecretResponse__Output,
  SigningSecret__Output,
  Webhook__Output,
} from '@switchyard/shared/proto/notification/v1';
import { notificationMetrics } from '../src/server';
import { expect } from './chai';
import { Receiver, startTestService, until, type TestService } from './helpers';

async function failure(promise: Promise<unknown>): Promise<AppError> {
  return promise.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (error: AppError) => error,
  );
}

describe('NotificationService gRPC contract', () => {
  let svc: TestService;
  let receiver: Receiver;

  before(async () => {
    receiver = await new Receiver().start();
    svc = await startTestService();
  });

  after(async () => {
    await svc.stop();
    await receiver.close();
  });

  it('reports SERVING through grpc.health.v1', async () => {
    expect(
      await checkHealth(`127.0.0.1:${svc.service.port}`, SERVICE_NAMES.NotificationService),
    ).to.equal('SERVING');
  });

  it('serves every RPC for the calling organization and not_found for another organization', async () => {
    const registered = await svc.call<RegisterWebhookResponse__Output>('RegisterWebhook', {
      events: ['data_updated'],
      url: receiver.url(),
    });
    const id = registered.webhook!.id;
    expect(id).to.match(/^wh_/);
    expect(registered.secret).to.match(/^whsec_/);
    expect(registered.webhook).to.include({
      enabled: true,
      disabled_reason: '',
      url: receiver.url(),
    });

    const list = await svc.call<ListWebhooksResponse__Output>('ListWebhooks', {});
    expect(list.webhooks.map((w) => w.id)).to.deep.equal([id]);
    expect(JSON.stringify(list)).to.not.include('whsec_');
    expect(
      (await svc.call<ListWebhooksResponse__Output>('ListWebhooks', {}, 'org_b')).webhooks,
    ).to.deep.equal([]);

    const fetched = await svc.call<Webhook__Output>('GetWebhook', { id });
    expect(fetched.events).to.deep.equal(['data_updated']);

    const updated = await svc.call<Webhook__Output>('UpdateWebhook', {
      id,
      events: ['data_updated', 'invoice_paid'],
      events_set: true,
      url: receiver.url('/v2'),
    });
    expect(updated.events).to.deep.equal(['data_updated', 'invoice_paid']);
    expect(updated.url).to.equal(receiver.url('/v2'));
    const untouched = await svc.call<Webhook__Output>('UpdateWebhook', {
      id,
      events: [],
      events_set: false,
    });
    expect(untouched.events).to.deep.equal(['data_updated', 'invoice_paid']);
    const paused = await svc.call<Webhook__Output>('UpdateWebhook', { id, enabled: false });
    expect(paused).to.include({ enabled: false });
    await svc.call<Webhook__Output>('UpdateWebhook', { id, enabled: true });

    const rotated = await svc.call<RotateSecretResponse__Output>('RotateWebhookSecret', { id });
    expect(rotated.secret)
      .to.match(/^whsec_/)
      .and.not.equal(registered.secret);
    const expiresIn = Date.parse(rotated.previous_secret_expires_at) - Date.now();
    expect(expiresIn).to.be.within(24 * 3600_000 - 60_000, 24 * 3600_000 + 1000);

    await svc.bus.publish(
      createEvent('data.updated', {
        source: 'test',
        organization: 'org_a',
        data: { dataset: 'x', count: 1 },
      }),
    );
    const deliveries = await until(async () => {
      const found = await svc.call<ListDeliveriesResponse__Output>('ListDeliveries', {
        webhook_id: id,
        limit: 10,
      });
      return found.deliveries[0]?.status === 'succeeded' ? found.deliveries : undefined;
    });
    expect(deliveries[0]).to.include({
      webhook_id: id,
      event: 'data_updated',
      url: receiver.url('/v2'),
    });
    expect(deliveries[0]!.attempts[0]).to.include({ status_code: 200, error: '' });
    const metrics = await notificationMetrics.metrics();
    expect(metrics).to.match(/notification_webhook_attempts_total\{outcome="succeeded"\} [1-9]/);
    expect(metrics).to.match(/notification_event_to_first_attempt_seconds_count [1-9]/);
    expect(metrics).to.include('notification_pending_deliveries');
    const replayed = await svc.call<Delivery__Output>('ReplayDelivery', {
      webhook_id: id,
      delivery_id: deliveries[0]!.id,
    });
    expect(replayed.event_id).to.equal(deliveries[0]!.event_id);

    const secret = await svc.call<SigningSecret__Output>('GetSigningSecret', {});
    expect(secret.secret).to.match(/^whsec_/);
    expect((await svc.call<SigningSecret__Output>('GetSigningSecret', {})).secret).to.equal(
      secret.secret,
    );
    expect(
      (await svc.call<SigningSecret__Output>('GetSigningSecret', {}, 'org_b')).secret,
    ).to.not.equal(secret.secret);
    const rotatedOrg = await svc.call<RotateSecretResponse__Output>('RotateSigningSecret', {
      overlap_seconds: 60,
    });
    expect(rotatedOrg.secret).to.not.equal(secret.secret);
    expect((await svc.call<SigningSecret__Output>('GetSigningSecret', {})).secret).to.equal(
      rotatedOrg.secret,
    );

    // Another organization sees none of it.
    const other = 'org_b';
    for (const [method, request] of [
      ['GetWebhook', { id }],
      ['UpdateWebhook', { id, enabled: false }],
      ['RotateWebhookSecret', { id }],
      ['ListDeliveries', { webhook_id: id }],
      ['ReplayDelivery', { webhook_id: id, delivery_id: deliveries[0]!.id }],
      ['ReplayDelivery', { webhook_id: '', delivery_id: deliveries[0]!.id }],
      ['DeleteWebhook', { id }],
    ] as const) {
      expect((await failure(svc.call(method, request, other))).code, method).to.equal('not_found');
    }
    expect(
      (await svc.call<ListDeliveriesResponse__Output>('ListDeliveries', {}, other)).deliveries,
    ).to.deep.equal([]);

    expect(
      (await svc.call<DeleteWebhookResponse__Output>('DeleteWebhook', { id })).deleted,
    ).to.equal(true);
    expect((await failure(svc.call('GetWebhook', { id }))).code).to.equal('not_found');
    expect((await failure(svc.call('DeleteWebhook', { id }))).code).to.equal('not_found');
  });

  it('answers invalid_request with the field for bad registrations', async () => {
    const cases: Array<[object, string]> = [
      [{ events: [], url: receiver.url() }, '/events'],
      [{ events: ['data_updated', 'invoice_sent'], url: receiver.url() }, '/events/1'],
      [{ events: ['data_updated'], url: '' }, '/url'],
      [{ events: ['data_updated'], url: 'ftp://example.com' }, '/url'],
      [{ events: ['data_updated'], url: receiver.url(), secret: 'hunter2' }, '/secret'],
    ];
    for (const [request, field] of cases) {
      const error = await failure(svc.call('RegisterWebhook', request));
      expect(error.code, field).to.equal('invalid_request');
      expect(error.details[0]!.field).to.equal(field);
    }
    const { webhook } = await svc.call<RegisterWebhookResponse__Output>('RegisterWebhook', {
      events: ['data_updated'],
      url: receiver.url(),
    });
    const badOverlap = await failure(
      svc.call('RotateWebhookSecret', { id: webhook!.id, overlap_seconds: -1 }),
    );
    expect(badOverlap.details[0]!.field).to.equal('/overlap_seconds');
    const badUpdate = await failure(
      svc.call('UpdateWebhook', { id: webhook!.id, events: [], events_set: true }),
    );
    expect(badUpdate.details[0]!.field).to.equal('/events');
  });

  it('keeps a caller-supplied secret and returns it once', async () => {
    const secret = `whsec_${Buffer.alloc(24, 3).toString('base64')}`;
    const registered = await svc.call<RegisterWebhookResponse__Output>('RegisterWebhook', {
      events: ['invoice_paid'],
      url: receiver.url(),
      secret,
    });
    expect(registered.secret).to.equal(secret);
  });
});
