import { createEvent, type AppError } from '@switchyard/shared';
import type {
  ListDeliveriesResponse__Output,
  RegisterWebhookResponse__Output as RegisterWebhookResponse,
  RotateSecretResponse__Output as RotateSecretResponse,
  Webhook__Output as Webhook,
} from '@switchyard/shared/proto/notification/v1';
import type { Resolver } from '@switchyard/shared';
import { expect } from './chai';
import { Receiver, startTestService, until, verifyWithLibrary, type TestService } from './helpers';

function dataEvent(organization = 'org_a', id?: string) {
  return createEvent('data.updated', {
    source: 'test',
    organization,
    id,
    data: { dataset: 'events', count: 3 },
  });
}

async function register(
  svc: TestService,
  url: string,
  events = ['data_updated'],
  organization = 'org_a',
) {
  return svc.call<RegisterWebhookResponse>('RegisterWebhook', { events, url }, organization);
}

async function deliveriesOf(
  svc: TestService,
  webhookId: string,
): Promise<ListDeliveriesResponse__Output['deliveries']> {
  return (
    (await svc.call<ListDeliveriesResponse__Output>('ListDeliveries', { webhook_id: webhookId }))
      .deliveries ?? []
  );
}

describe('delivery engine (real HTTP receivers)', () => {
  let receiver: Receiver;
  let svc: TestService | undefined;

  beforeEach(async () => {
    receiver = await new Receiver().start();
  });

  afterEach(async () => {
    await svc?.stop();
    svc = undefined;
    await receiver.close();
  });

  it('retries with the same webhook-id until success and logs every attempt', async () => {
    svc = await startTestService();
    receiver.responder = (_call, index) =>
      index < 2 ? { status: 500, body: `boom ${index}` } : { status: 200, body: 'thanks' };
    const { webhook, secret } = await register(svc, receiver.url());
    await svc.bus.publish(dataEvent());
    await until(() => receiver.calls.length === 3);
    for (const call of receiver.calls)
      expect(() => verifyWithLibrary(secret!, call)).not.to.throw();
    const ids = new Set(receiver.calls.map((c) => c.headers['webhook-id']));
    expect(ids.size).to.equal(1);
    const [delivery] = await until(async () => {
      const list = await deliveriesOf(svc!, webhook!.id!);
      return list[0]?.status === 'succeeded' ? list : undefined;
    });
    expect(delivery!.attempts!.map((a) => a.status_code)).to.deep.equal([500, 500, 200]);
    expect(delivery!.attempts![0]!.response_body).to.equal('boom 0');
    expect(delivery!.attempts![0]!.error).to.equal('HTTP 500');
    expect(delivery!.attempts![2]!.response_body).to.equal('thanks');
    expect(delivery!.next_attempt_at).to.equal('');
  });

  it('gives up after the schedule is exhausted', async () => {
    svc = await startTestService();
    receiver.responder = () => ({ status: 500 });
    const { webhook } = await register(svc, receiver.url());
    await svc.bus.publish(dataEvent());
    const [delivery] = await until(async () => {
      const list = await deliveriesOf(svc!, webhook!.id!);
      return list[0]?.status === 'failed' ? list : undefined;
    });
    expect(delivery!.attempts).to.have.length(3);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(receiver.calls).to.have.length(3);
  });

  it('sends two signatures during a rotation, each verifying with its own secret', async () => {
    svc = await startTestService();
    const { webhook, secret: oldSecret } = await register(svc, receiver.url());
    const rotated = await svc.call<RotateSecretResponse>('RotateWebhookSecret', {
      id: webhook!.id,
      overlap_seconds: 3600,
    });
    expect(Date.parse(rotated.previous_secret_expires_at!)).to.be.greaterThan(
      Date.now() + 3500_000,
    );
    await svc.bus.publish(dataEvent());
    const [call] = await until(() => (receiver.calls.length === 1 ? receiver.calls : undefined));
    expect(String(call!.headers['webhook-signature']).split(' ')).to.have.length(2);
    expect(call!.headers['x-service-signature']).to.equal(call!.headers['webhook-signature']);
    expect(() => verifyWithLibrary(rotated.secret!, call!)).not.to.throw();
    expect(() => verifyWithLibrary(oldSecret!, call!)).not.to.throw();
  });

  it('stops signing with the previous secret when the rotation has no overlap', async () => {
    svc = await startTestService();
    const { webhook, secret: oldSecret } = await register(svc, receiver.url());
    const rotated = await svc.call<RotateSecretResponse>('RotateWebhookSecret', {
      id: webhook!.id,
      overlap_seconds: 0,
    });
    await svc.bus.publish(dataEvent());
    const [call] = await until(() => (receiver.calls.length === 1 ? receiver.calls : undefined));
    expect(() => verifyWithLibrary(rotated.secret!, call!)).not.to.throw();
    expect(() => verifyWithLibrary(oldSecret!, call!)).to.throw();
  });

  it('tells the organization through its webhook_disabled webhooks when a webhook is disabled', async () => {
    svc = await startTestService();
    const ops = await new Receiver().start();
    try {
      receiver.responder = () => ({ status: 410 });
      const { webhook } = await register(svc, receiver.url());
      const { secret: opsSecret } = await register(svc, ops.url(), ['webhook_disabled']);
      await svc.bus.publish(dataEvent());
      const [call] = await until(() => (ops.calls.length === 1 ? ops.calls : undefined));
      expect(() => verifyWithLibrary(opsSecret!, call!)).not.to.throw();
      const body = JSON.parse(call!.body) as Record<string, unknown>;
      expect(body).to.include({
        event: 'webhook_disabled',
        organization: 'org_a',
        webhookId: webhook!.id,
        url: receiver.url(),
      });
      expect(body.reason).to.match(/410/);
    } finally {
      await ops.close();
    }
  });

  it('disables the webhook on 410 Gone', async () => {
    svc = await startTestService();
    receiver.responder = () => ({ status: 410 });
    const { webhook } = await register(svc, receiver.url());
    await svc.bus.publish(dataEvent());
    const disabled = await until(async () => {
      const current = await svc!.call<Webhook>('GetWebhook', { id: webhook!.id });
      return current.enabled ? undefined : current;
    });
    expect(disabled.disabled_reason).to.match(/410/);
    const [delivery] = await deliveriesOf(svc, webhook!.id!);
    expect(delivery!.status).to.equal('failed');
    expect(delivery!.attempts).to.have.length(1);
    // Later events skip a disabled webhook.
    await svc.bus.publish(dataEvent());
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(receiver.calls).to.have.length(1);
  });

  it('counts a redirect as a failure and does not follow it', async () => {
    svc = await startTestService();
    const other = await new Receiver().start();
    try {
      receiver.responder = () => ({ status: 302, headers: { location: other.url() } });
      const { webhook } = await register(svc, receiver.url());
      await svc.bus.publish(dataEvent());
      const [delivery] = await until(async () => {
        const list = await deliveriesOf(svc!, webhook!.id!);
        return list[0]?.status === 'failed' ? list : undefined;
      });
      expect(delivery!.attempts!.map((a) => a.status_code)).to.deep.equal([302, 302, 302]);
      expect(delivery!.attempts![0]!.error).to.match(/redirect/);
      expect(other.calls).to.have.length(0);
    } finally {
      await other.close();
    }
  });

  it('honours Retry-After on 429 and 503', async () => {
    svc = await startTestService();
    receiver.responder = (_call, index) =>
      index === 0
        ? { status: 429, headers: { 'retry-after': '1' } }
        : index === 1
          ? { status: 503, headers: { 'retry-after': '1' } }
          : { status: 200 };
    await register(svc, receiver.url());
    await svc.bus.publish(dataEvent());
    await until(() => receiver.calls.length === 3, 8000);
    const [first, second, third] = receiver.calls.map((c) => c.receivedAt);
    expect(second! - first!).to.be.at.least(950);
    expect(third! - second!).to.be.at.least(950);
  });

  it('times out a slow receiver and keeps at most 1 KiB of a response body', async () => {
    svc = await startTestService({ WEBHOOK_TIMEOUT_MS: '200', WEBHOOK_RETRY_SCHEDULE: '0,50ms' });
    receiver.responder = (_call, index) =>
      index === 0 ? { status: 200, delayMs: 1000 } : { status: 500, body: 'x'.repeat(5000) };
    const { webhook } = await register(svc, receiver.url());
    await svc.bus.publish(dataEvent());
    const [delivery] = await until(async () => {
      const list = await deliveriesOf(svc!, webhook!.id!);
      return list[0]?.status === 'failed' ? list : undefined;
    });
    expect(delivery!.attempts![0]).to.include({ status_code: 0 });
    expect(delivery!.attempts![0]!.error).to.match(/no response within 200 ms/);
    expect(delivery!.attempts![1]!.response_body).to.have.length(1024);
  });

  it('limits concurrent attempts per host and still delivers everything', async () => {
    svc = await startTestService({ WEBHOOK_MAX_CONCURRENCY_PER_HOST: '2' });
    receiver.responder = () => ({ status: 200, delayMs: 150 });
    await register(svc, receiver.url());
    for (let i = 0; i < 6; i++) await svc.bus.publish(dataEvent());
    await until(() => receiver.calls.length === 6, 8000);
    expect(receiver.maxInFlight).to.equal(2);
  });

  it('frees the host for the next attempt once the receiver answered, while the outcomes are still being logged', async () => {
    svc = await startTestService({ WEBHOOK_MAX_CONCURRENCY_PER_HOST: '1' });
    const deliveries = svc.service.stores.deliveries;
    const insert = deliveries.insert.bind(deliveries);
    let openGate!: () => void;
    const gate = new Promise<void>((resolve) => (openGate = resolve));
    deliveries.insert = async (records) => (await gate, insert(records));
    // One event, three webhooks on one host: one batch, three first attempts through one slot.
    for (let i = 0; i < 3; i++) await register(svc, receiver.url(`/hook${i}`));
    await svc.bus.publish(dataEvent());
    await until(() => receiver.calls.length === 3, 5000);
    expect(receiver.maxInFlight).to.equal(1);
    expect(await deliveries.list('org_a', { limit: 10 })).to.deep.equal([]);
    openGate();
    await until(
      async () => (await deliveries.list('org_a', { status: 'succeeded', limit: 10 })).length === 3,
      5000,
    );
  });

  it('keeps delivering to other hosts while one host holds every attempt open', async () => {
    svc = await startTestService({
      WEBHOOK_MAX_CONCURRENCY_PER_HOST: '2',
      WEBHOOK_MAX_CONCURRENCY: '4',
      WEBHOOK_TIMEOUT_MS: '30000',
    });
    const stuck = await new Receiver().start();
    stuck.responder = () => ({ status: 200, delayMs: 60_000 });
    try {
      await register(svc, stuck.url('/stuck'));
      await register(svc, receiver.url());
      for (let i = 0; i < 20; i++) await svc.bus.publish(dataEvent());
      // Every healthy delivery arrives while the stuck host has not answered a single attempt.
      await until(() => receiver.calls.length === 20, 10_000);
      expect(stuck.calls).to.have.length(2);
      expect(stuck.maxInFlight).to.equal(2);
    } finally {
      await stuck.close();
    }
  });

  it('attempts a new delivery straight from the event, not on a sweep', async () => {
    svc = await startTestService({ WEBHOOK_SWEEP_INTERVAL_MS: '600000' });
    await register(svc, receiver.url());
    await svc.bus.publish(dataEvent());
    await until(() => receiver.calls.length === 1, 5000);
    const [delivery] = await until(async () => {
      const logged = await svc!.service.stores.deliveries.list('org_a', { limit: 1 });
      return logged.length > 0 && logged;
    });
    expect(delivery!.attempts).to.have.length(1);
    expect(delivery!.status).to.equal('succeeded');
    expect(await svc.service.stores.dueQueue.size()).to.equal(0);
  });

  it('disables a webhook that keeps failing for WEBHOOK_DISABLE_AFTER', async () => {
    svc = await startTestService({
      WEBHOOK_DISABLE_AFTER: '100ms',
      WEBHOOK_RETRY_SCHEDULE: '0,150ms,150ms',
    });
    receiver.responder = () => ({ status: 500 });
    const { webhook } = await register(svc, receiver.url());
    await svc.bus.publish(dataEvent());
    const disabled = await until(async () => {
      const current = await svc!.call<Webhook>('GetWebhook', { id: webhook!.id });
      return current.enabled ? undefined : current;
    });
    expect(disabled.disabled_reason).to.match(/failing continuously/);
    // Re-enabling through UpdateWebhook clears the reason.
    const enabled = await svc.call<Webhook>('UpdateWebhook', { id: webhook!.id, enabled: true });
    expect(enabled).to.include({ enabled: true, disabled_reason: '' });
  });

  it('connects to the checked address while keeping the hostname in the Host header', async () => {
    const resolver: Resolver = async (hostname) => {
      if (hostname === 'receiver.test') return [{ address: '127.0.0.1', family: 4 }];
      throw new Error('ENOTFOUND');
    };
    svc = await startTestService({}, { resolver });
    const { secret } = await register(svc, `http://receiver.test:${receiver.port}/hook`);
    await svc.bus.publish(dataEvent());
    const [call] = await until(() => (receiver.calls.length === 1 ? receiver.calls : undefined));
    expect(call!.headers.host).to.equal(`receiver.test:${receiver.port}`);
    expect(() => verifyWithLibrary(secret!, call!)).not.to.throw();
  });

  it('refuses private destinations at registration when private networks are not allowed', async () => {
    svc = await startTestService({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'false' });
    const port = receiver.port;
    const urls = [
      `http://127.0.0.1:${port}/hook`,
      'http://10.0.0.1/hook',
      'http://169.254.169.254/latest/meta-data/',
      `http://[::1]:${port}/hook`,
      `http://[::ffff:127.0.0.1]:${port}/hook`,
      `http://localhost:${port}/hook`,
    ];
    for (const url of urls) {
      const error = await register(svc, url).then(
        () => undefined,
        (e: AppError) => e,
      );
      expect(error, url).to.not.equal(undefined);
      expect(error!.code, url).to.equal('invalid_request');
      expect(error!.details[0]!.field, url).to.equal('/url');
      expect(error!.details[0]!.reason, url).to.match(/not allowed/);
    }
    expect(receiver.calls).to.have.length(0);
  });

  it('refuses at send time when DNS now points at a private address (rebinding)', async () => {
    let answer = '93.184.216.34';
    const resolver: Resolver = async () => [{ address: answer, family: 4 }];
    svc = await startTestService(
      { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'false', WEBHOOK_RETRY_SCHEDULE: '0' },
      { resolver },
    );
    const { webhook } = await register(svc, `http://rebind.test:${receiver.port}/hook`);
    answer = '127.0.0.1';
    await svc.bus.publish(dataEvent());
    const [delivery] = await until(async () => {
      const list = await deliveriesOf(svc!, webhook!.id!);
      return list[0]?.status === 'failed' ? list : undefined;
    });
    expect(delivery!.attempts![0]!.error).to.match(/destination refused: .*127\.0\.0\.1.*loopback/);
    expect(receiver.calls).to.have.length(0);
  });

  it('refuses at send time a stored URL that the policy no longer allows', async () => {
    svc = await startTestService({
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'false',
      WEBHOOK_RETRY_SCHEDULE: '0',
    });
    const now = new Date().toISOString();
    // Stored directly (as if registered under an older, looser policy).
    await svc.service.stores.webhooks.create({
      id: 'wh_legacy',
      organization: 'org_a',
      events: ['data_updated'],
      url: `http://localhost:${receiver.port}/hook`,
      enabled: true,
      disabledReason: '',
      createdAt: now,
      updatedAt: now,
      secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    });
    await svc.bus.publish(dataEvent());
    const [delivery] = await until(async () => {
      const list = await deliveriesOf(svc!, 'wh_legacy');
      return list[0]?.status === 'failed' ? list : undefined;
    });
    expect(delivery!.attempts![0]!.error).to.match(/destination refused/);
    expect(receiver.calls).to.have.length(0);
  });

  it('replays a delivery as a new delivery with the same body and webhook-id', async () => {
    svc = await startTestService();
    const { webhook, secret } = await register(svc, receiver.url());
    await svc.bus.publish(dataEvent());
    await until(() => receiver.calls.length === 1);
    const [original] = await until(async () => {
      const list = await deliveriesOf(svc!, webhook!.id!);
      return list[0]?.status === 'succeeded' ? list : undefined;
    });
    const replay = await svc.call<{ id: string; event_id: string }>('ReplayDelivery', {
      webhook_id: webhook!.id,
      delivery_id: original!.id,
    });
    expect(replay.id).to.not.equal(original!.id);
    expect(replay.event_id).to.equal(original!.event_id);
    await until(() => receiver.calls.length === 2);
    const [first, second] = receiver.calls;
    expect(second!.body).to.equal(first!.body);
    expect(second!.headers['webhook-id']).to.equal(first!.headers['webhook-id']);
    expect(() => verifyWithLibrary(secret!, second!)).not.to.throw();
    const list = await deliveriesOf(svc, webhook!.id!);
    expect(list.map((d) => d.id)).to.deep.equal([replay.id, original!.id]);
  });
});
