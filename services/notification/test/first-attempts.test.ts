import { connectRedis, createEvent, UrlPolicy } from '@switchyard/shared';
import { endpointOf, silentLogger, uniqueName, waitFor } from '@switchyard/shared/testing';
import type { Redis } from 'ioredis';
import { loadNotificationConfig } from '../src/config';
import { DeliveryEngine, type NewDelivery } from '../src/delivery/engine';
import { deliveryIdentity } from '../src/delivery/identity';
import { OrgSigningSecrets } from '../src/signing/org-secrets';
import {
  InMemoryDueQueue,
  inMemoryStores,
  RedisDueQueue,
  type NotificationStores,
} from '../src/store';
import { expect } from './chai';
import { Receiver, startTestService, TEST_ENV, until, type TestService } from './helpers';
import { webhookRecord } from './store-fixtures';

function dataEvent(id?: string) {
  return createEvent('data.updated', {
    source: 'test',
    organization: 'org_a',
    id,
    data: { dataset: 'events', count: 3 },
  });
}

describe('first attempts before the log: slow and dead hosts do not hold a batch', () => {
  let healthy: Receiver;
  let stuck: Receiver;
  let svc: TestService | undefined;

  beforeEach(async () => {
    healthy = await new Receiver().start();
    stuck = await new Receiver().start();
  });

  afterEach(async () => {
    await svc?.stop();
    svc = undefined;
    await healthy.close();
    await stuck.close();
  });

  it('logs the attempt to a host that stopped answering as pending, sends the rest, and records the late outcome', async () => {
    svc = await startTestService({ WEBHOOK_HOST_STALL_MS: '150', WEBHOOK_TIMEOUT_MS: '5000' });
    stuck.responder = () => ({ status: 200, delayMs: 1500 });
    for (const receiver of [healthy, stuck])
      await svc.call('RegisterWebhook', { events: ['data_updated'], url: receiver.url() });
    const first = dataEvent();
    await svc.bus.publish(first);
    const deliveries = svc.service.stores.deliveries;
    // The batch is logged while the stuck host still holds its attempt.
    const logged = await until(async () => {
      const all = await deliveries.list('org_a', { limit: 10 });
      return all.length === 2 && all;
    }, 3000);
    const byUrl = (url: string) => logged.find((d) => d.url === url)!;
    expect(byUrl(healthy.url()).status).to.equal('succeeded');
    expect(byUrl(stuck.url())).to.include({ status: 'pending' });
    expect(byUrl(stuck.url()).attempts).to.deep.equal([]);
    // The next event's delivery to the stuck host is not waited for at all: logged pending at
    // once (the due queue sends it), while the healthy one is delivered.
    await svc.bus.publish(dataEvent());
    await until(() => healthy.calls.length === 2, 1000);
    const second = await until(async () => {
      const all = await deliveries.list('org_a', { limit: 10 });
      return all.length === 4 && all;
    }, 1000);
    expect(second.filter((d) => d.url === stuck.url()).map((d) => d.status)).to.deep.equal([
      'pending',
      'pending',
    ]);
    // The late answer is recorded on the logged delivery; the queued one is sent from the queue.
    await until(async () => {
      const done = await deliveries.list('org_a', { status: 'succeeded', limit: 10 });
      return done.length === 4;
    }, 8000);
    const stuckOnes = (await deliveries.list('org_a', { limit: 10 })).filter(
      (d) => d.url === stuck.url(),
    );
    expect(stuckOnes.map((d) => d.attempts.length)).to.deep.equal([1, 1]);
    expect(await svc.service.stores.dueQueue.size()).to.equal(0);
  });

  it('holds a batch for a busy host that keeps answering, and logs its outcomes with it', async () => {
    svc = await startTestService({
      WEBHOOK_HOST_STALL_MS: '400',
      WEBHOOK_MAX_CONCURRENCY_PER_HOST: '2',
    });
    healthy.responder = () => ({ status: 200, delayMs: 100 });
    for (let i = 0; i < 10; i++)
      await svc.call('RegisterWebhook', { events: ['data_updated'], url: healthy.url(`/h${i}`) });
    await svc.bus.publish(dataEvent());
    // Ten attempts two at a time take 500 ms, longer than the stall time: never held back.
    await until(async () => {
      const done = await svc!.service.stores.deliveries.list('org_a', {
        status: 'succeeded',
        limit: 20,
      });
      return done.length === 10;
    }, 5000);
    expect(await svc.service.stores.deliveries.list('org_a', { status: 'pending', limit: 20 })).to
      .be.empty;
    expect(healthy.calls).to.have.length(10);
  });
});

describe('deliveries of events handled before, and a lost due queue', () => {
  let receiver: Receiver;
  let stores: NotificationStores;
  const engines: DeliveryEngine[] = [];
  const redisClients: Redis[] = [];
  const config = loadNotificationConfig({ ...TEST_ENV, WEBHOOK_RETRY_SCHEDULE: '0,100ms,100ms' });

  function start(on: NotificationStores): DeliveryEngine {
    const engine = new DeliveryEngine({
      deliveries: on.deliveries,
      dueQueue: on.dueQueue,
      webhooks: on.webhooks,
      orgSecrets: new OrgSigningSecrets(on.signingSecrets),
      policy: new UrlPolicy(config.urlPolicy),
      config: config.delivery,
      logger: silentLogger(),
    });
    engine.start();
    engines.push(engine);
    return engine;
  }

  async function input(eventId: string): Promise<NewDelivery> {
    const webhook = webhookRecord({ url: receiver.url(`/${eventId}`) });
    await stores.webhooks.create(webhook);
    return {
      organization: 'org_a',
      webhookId: webhook.id,
      eventId,
      event: 'data_updated',
      occurredAt: new Date().toISOString(),
      url: webhook.url,
      payload: JSON.stringify({ event: 'data_updated', id: eventId }),
      webhook,
    };
  }

  const calls = (eventId: string) =>
    receiver.calls.filter((c) => JSON.parse(c.body).id === eventId);
  const logged = async (eventId: string, webhookId: string) =>
    stores.deliveries.get('org_a', deliveryIdentity('org_a', eventId, webhookId).id);

  beforeEach(async () => {
    receiver = await new Receiver().start();
    stores = inMemoryStores();
  });

  afterEach(async () => {
    for (const engine of engines.splice(0)) await engine.stop();
    for (const client of redisClients.splice(0)) client.disconnect();
    await receiver.close();
  });

  it('sends an event published twice once, under a webhook-id derived from the event and target', async () => {
    const engine = start(stores);
    const delivery = await input('evt_twice');
    expect(await engine.deliver([delivery])).to.equal(1);
    expect(await engine.deliver([delivery])).to.equal(0);
    expect(calls('evt_twice')).to.have.length(1);
    const { messageId } = deliveryIdentity('org_a', 'evt_twice', delivery.webhookId);
    expect(calls('evt_twice')[0]!.headers['webhook-id']).to.equal(messageId);
  });

  it('sends an event in two batches at once (published again while its first attempt is out) once', async () => {
    const engine = start(stores);
    receiver.responder = () => ({ status: 200, delayMs: 200 });
    const unordered = await input('evt_both');
    const keyed = { ...(await input('evt_both_keyed')), lane: 'k-1' };
    const created = await Promise.all([
      engine.deliver([unordered, keyed]),
      engine.deliver([unordered, keyed]),
    ]);
    expect(created).to.deep.equal([2, 0]);
    await until(async () => (await stores.deliveries.list('org_a', { limit: 10 })).length === 2);
    // One more of the key: it goes once the first is done, and nothing is sent twice.
    const next = { ...(await input('evt_after')), lane: 'k-1' };
    await engine.deliver([next]);
    await until(() => calls('evt_after').length === 1, 5000);
    expect(calls('evt_both')).to.have.length(1);
    expect(calls('evt_both_keyed')).to.have.length(1);
    for (const delivery of [unordered, keyed])
      expect((await logged(delivery.eventId, delivery.webhookId))!.status).to.equal('succeeded');
  });

  it('after a takeover (mayRepeat) sends only what is not logged, and queues again what is pending', async () => {
    const first = start(stores);
    const done = await input('evt_done');
    const retrying = await input('evt_retrying');
    const fresh = await input('evt_fresh');
    receiver.responder = (call) => ({
      status: JSON.parse(call.body).id === 'evt_retrying' ? 503 : 200,
    });
    await first.deliver([done, retrying]);
    expect((await logged('evt_retrying', retrying.webhookId))!.status).to.equal('pending');
    // The replica dies; its successor's due queue does not have the retry (complete, not rebuilt).
    await first.stop();
    const queue = new InMemoryDueQueue();
    await queue.finishRebuild();
    receiver.responder = () => ({ status: 200 });
    const second = start({ ...stores, dueQueue: queue });
    expect(await second.deliver([done, retrying, fresh], { mayRepeat: true })).to.equal(1);
    await until(
      async () => (await logged('evt_retrying', retrying.webhookId))!.status === 'succeeded',
      5000,
    );
    expect(calls('evt_done')).to.have.length(1);
    expect(calls('evt_fresh')).to.have.length(1);
    expect(calls('evt_retrying')).to.have.length(2);
  });

  it('refills a due queue that was lost (Redis restarted empty) from the log, and the retry goes out', async function () {
    if (!endpointOf('redis')) this.skip();
    const prefix = `${uniqueName('lost')}:`;
    const redis = await connectRedis(endpointOf('redis')!, silentLogger());
    redisClients.push(redis);
    const engine = start({ ...stores, dueQueue: new RedisDueQueue(redis, prefix) });
    const delivery = await input('evt_lost');
    receiver.responder = () => ({ status: 503, headers: { 'retry-after': '1' } });
    await engine.deliver([delivery]);
    expect(await redis.zcard(`${prefix}{due}`)).to.equal(1);
    await redis.del(`${prefix}{due}`, `${prefix}{due}:complete`);
    receiver.responder = () => ({ status: 200 });
    await until(
      async () => (await logged('evt_lost', delivery.webhookId))?.status === 'succeeded',
      15_000,
    );
    expect(calls('evt_lost')).to.have.length(2);
    await waitFor(async () => (await redis.zcard(`${prefix}{due}`)) === 0, 2000);
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
  });
});
