import { randomBytes } from 'node:crypto';
import { connectMongo, createEvent } from '@switchyard/shared';
import { endpointOf, silentLogger, uniqueName } from '@switchyard/shared/testing';
import type {
  ListDeliveriesResponse__Output,
  RegisterWebhookResponse__Output,
  Webhook__Output,
} from '@switchyard/shared/proto/notification/v1';
import { notificationMetrics } from '../src/metrics';
import { reencryptSecrets } from '../src/store/reencrypt';
import { SecretBox } from '../src/store/secret-box';
import { expect } from './chai';
import { Receiver, startTestService, until, verifyWithLibrary, type TestService } from './helpers';

const OLD_KEY = randomBytes(32).toString('base64');
const NEW_KEY = randomBytes(32).toString('base64');

async function unpreparedFailures(): Promise<number> {
  const metric = await notificationMetrics
    .getSingleMetric('notification_webhook_failures_total')!
    .get();
  return metric.values.find((v) => v.labels.reason === 'unprepared')?.value ?? 0;
}

/**
 * Issue 24, item 4: a webhook whose stored secret no longer decrypts (a key change, a damaged
 * record) fails alone, visibly; the organization's other webhooks get every delivery. And the key
 * can be rotated: old keys read, the new one seals, a command seals everything again.
 */
describe('secrets at rest: one unreadable secret, key rotation', function () {
  this.timeout(60_000);
  let env: NodeJS.ProcessEnv;
  const services: TestService[] = [];
  const receivers: Receiver[] = [];

  async function start(key: string, oldKeys = ''): Promise<TestService> {
    const svc = await startTestService({
      ...env,
      SECRETS_ENCRYPTION_KEY: key,
      SECRETS_ENCRYPTION_OLD_KEYS: oldKeys,
    });
    services.push(svc);
    return svc;
  }

  async function receiver(): Promise<Receiver> {
    const started = await new Receiver().start();
    receivers.push(started);
    return started;
  }

  const dataEvent = (i: number) =>
    createEvent('data.updated', {
      source: 'ingest',
      organization: 'org_a',
      data: { dataset: `batch-${i}`, count: i },
    });

  before(function () {
    if (!endpointOf('mongo')) this.skip();
  });

  beforeEach(() => {
    env = {
      MONGODB_URI: endpointOf('mongo'),
      MONGODB_DATABASE: uniqueName('notification_secrets'),
      WEBHOOK_RETRY_SCHEDULE: '0,100ms,100ms',
      WEBHOOK_SWEEP_INTERVAL_MS: '50',
    };
  });

  afterEach(async () => {
    for (const svc of services.splice(0)) await svc.stop().catch(() => undefined);
    for (const r of receivers.splice(0)) await r.close();
    const connection = await connectMongo(env.MONGODB_URI!, env.MONGODB_DATABASE!, silentLogger());
    await connection.db.dropDatabase();
    await connection.close();
  });

  it('delivers every event to 10 healthy webhooks beside one whose secret does not decrypt, which fails alone and is disabled', async () => {
    const first = await start(OLD_KEY);
    const broken = await receiver();
    const { webhook: stale } = await first.call<RegisterWebhookResponse__Output>(
      'RegisterWebhook',
      { events: ['data_updated'], url: broken.url('/stale') },
    );
    await first.stop();
    services.splice(0);

    // The key changed without SECRETS_ENCRYPTION_OLD_KEYS: the first webhook's secret is unreadable.
    const svc = await start(NEW_KEY);
    const healthy: Array<{ receiver: Receiver; secret: string }> = [];
    for (let i = 0; i < 10; i++) {
      const r = await receiver();
      const { secret } = await svc.call<RegisterWebhookResponse__Output>('RegisterWebhook', {
        events: ['data_updated'],
        url: r.url(`/healthy-${i}`),
      });
      healthy.push({ receiver: r, secret });
    }
    const failuresBefore = await unpreparedFailures();
    const events = 20;
    for (let i = 0; i < events; i++) await svc.bus.publish(dataEvent(i));

    await until(() => healthy.every((h) => h.receiver.calls.length >= events), 30_000);
    for (const { receiver: r, secret } of healthy) {
      expect(r.calls).to.have.length(events);
      for (const call of r.calls) verifyWithLibrary(secret, call);
      const datasets = new Set(
        r.calls.map((c) => (JSON.parse(c.body) as { dataset: string }).dataset),
      );
      expect(datasets.size).to.equal(events);
    }
    expect(broken.calls).to.have.length(0);

    const disabled = await until(async () => {
      const webhook = await svc.call<Webhook__Output>('GetWebhook', { id: stale!.id });
      return webhook.enabled ? undefined : webhook;
    }, 10_000);
    expect(disabled.disabled_reason).to.match(/deliveries cannot be prepared: .*does not decrypt/);
    // The webhook is disabled after its first failed attempts; deliveries made since may have no
    // attempt yet, so the one looked at is one that was tried.
    const attempted = await until(async () => {
      const log = await svc.call<ListDeliveriesResponse__Output>('ListDeliveries', {
        webhook_id: stale!.id,
        limit: 50,
      });
      return log.deliveries.find((d) => d.attempts.length > 0);
    }, 10_000);
    expect(attempted.attempts[0]!.error).to.match(/does not decrypt/);
    expect(await unpreparedFailures()).to.be.greaterThan(failuresBefore);
  });

  it('rotates SECRETS_ENCRYPTION_KEY: old keys still open, the command seals everything with the new key', async () => {
    const first = await start(OLD_KEY);
    const r = await receiver();
    const { secret } = await first.call<RegisterWebhookResponse__Output>('RegisterWebhook', {
      events: ['data_updated'],
      url: r.url(),
    });
    await first.stop();
    services.splice(0);

    const rotating = await start(NEW_KEY, OLD_KEY);
    await rotating.bus.publish(dataEvent(1));
    await until(() => r.calls.length === 1);
    verifyWithLibrary(secret, r.calls[0]!);

    const connection = await connectMongo(env.MONGODB_URI!, env.MONGODB_DATABASE!, silentLogger());
    try {
      const box = new SecretBox(Buffer.from(NEW_KEY, 'base64'), [Buffer.from(OLD_KEY, 'base64')]);
      const report = await reencryptSecrets(connection.db, box);
      expect(report.webhooks).to.deep.equal({ records: 1, reencrypted: 1, unreadable: [] });
      expect((await reencryptSecrets(connection.db, box)).webhooks.reencrypted).to.equal(0);
    } finally {
      await connection.close();
    }
    await rotating.stop();
    services.splice(0);

    const rotated = await start(NEW_KEY);
    await rotated.bus.publish(dataEvent(2));
    await until(() => r.calls.length === 2);
    verifyWithLibrary(secret, r.calls[1]!);
  });
});
