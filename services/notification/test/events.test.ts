import { createEvent } from '@switchyard/shared';
import type {
  ListDeliveriesResponse__Output,
  ListEventsResponse__Output,
  RegisterWebhookResponse__Output,
  SigningSecret__Output,
} from '@switchyard/shared/proto/notification/v1';
import { notificationMetrics } from '../src/metrics';
import { expect } from './chai';
import {
  Receiver,
  startTestService,
  until,
  verifyWithLibrary,
  type ReceivedCall,
  type TestService,
} from './helpers';

const DEV_SECRET = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function bodies(calls: ReceivedCall[]): Array<Record<string, unknown>> {
  return calls.map((call) => JSON.parse(call.body) as Record<string, unknown>);
}

function usageEvent(organization: string, tokens: number, id?: string) {
  return createEvent('usage.recorded', {
    source: 'content',
    organization,
    id,
    time: '2026-11-21T10:00:00.000Z',
    data: {
      requestId: 'req_1',
      keyId: 'key_1',
      route: 'content.generate',
      model: 'builtin',
      tokensInput: tokens,
      tokensOutput: 0,
      cost: 0,
      outcome: 'succeeded',
    },
  });
}

const invoicePaid = () =>
  createEvent('invoice.paid', {
    source: 'billing',
    organization: 'org_a',
    data: { invoiceId: 'inv_1', amount: 12.5, currency: 'EUR' },
  });
const dataUpdated = () =>
  createEvent('data.updated', {
    source: 'ingest',
    organization: 'org_a',
    data: { dataset: 'events', count: 42 },
  });
const requestCompleted = () =>
  createEvent('request.completed', {
    source: 'content',
    organization: 'org_a',
    data: {
      requestId: 'req_9',
      webhookUrl: '',
      result: 'Hello',
      model: 'builtin',
      usage: { totalTokens: 7 },
    },
  });

describe('event consumers', () => {
  const receivers: Record<string, Receiver> = {};
  let svc: TestService;

  async function register(name: string, events: string[], organization = 'org_a'): Promise<string> {
    const response = await svc.call<RegisterWebhookResponse__Output>(
      'RegisterWebhook',
      { events, url: receivers[name]!.url(`/${name}`) },
      organization,
    );
    return response.secret;
  }

  beforeEach(async () => {
    for (const name of ['usage', 'invoices', 'data', 'results', 'all', 'other', 'callback'])
      receivers[name] = await new Receiver().start();
    svc = await startTestService({
      DEFAULT_MONTHLY_TOKEN_QUOTA: '1000',
      USAGE_THRESHOLD_SHARES: '0.5,1.0',
      DEV_SIGNING_SECRET: DEV_SECRET,
    });
  });

  afterEach(async () => {
    await svc.stop();
    for (const receiver of Object.values(receivers)) await receiver.close();
  });

  it('fans each event type out to the webhooks registered for it, with the right body', async () => {
    const secrets = {
      usage: await register('usage', ['usage_threshold']),
      invoices: await register('invoices', ['invoice_paid', 'invoice_failed']),
      data: await register('data', ['data_updated']),
      results: await register('results', ['request_completed']),
      all: await register('all', [
        'usage_threshold',
        'invoice_paid',
        'invoice_failed',
        'data_updated',
        'request_completed',
      ]),
      other: await register(
        'other',
        ['usage_threshold', 'invoice_paid', 'invoice_failed', 'data_updated', 'request_completed'],
        'org_b',
      ),
    };
    const paid = invoicePaid();
    const failed = createEvent('invoice.failed', {
      source: 'billing',
      organization: 'org_a',
      data: { invoiceId: 'inv_2', amount: 3, currency: 'USD', failureReason: 'card_declined' },
    });
    const data = dataUpdated();
    const result = requestCompleted();
    for (const event of [paid, failed, data, result]) await svc.bus.publish(event);
    await svc.bus.publish(usageEvent('org_a', 600));

    await until(() => receivers.all!.calls.length === 5);
    await until(
      () =>
        receivers.invoices!.calls.length === 2 &&
        receivers.data!.calls.length === 1 &&
        receivers.results!.calls.length === 1 &&
        receivers.usage!.calls.length === 1,
    );
    await pause(100);
    expect(receivers.other!.calls).to.have.length(0);
    for (const name of ['usage', 'invoices', 'data', 'results', 'all'] as const) {
      for (const call of receivers[name]!.calls)
        expect(() => verifyWithLibrary(secrets[name], call)).not.to.throw();
    }
    expect(receivers.invoices!.calls).to.have.length(2);
    expect(bodies(receivers.invoices!.calls)).to.have.deep.members([
      {
        event: 'invoice_paid',
        organization: 'org_a',
        invoiceId: 'inv_1',
        amount: 12.5,
        currency: 'EUR',
        id: paid.id,
        occurredAt: paid.time,
      },
      {
        event: 'invoice_failed',
        organization: 'org_a',
        invoiceId: 'inv_2',
        amount: 3,
        currency: 'USD',
        failureReason: 'card_declined',
        id: failed.id,
        occurredAt: failed.time,
      },
    ]);
    expect(bodies(receivers.data!.calls)).to.deep.equal([
      {
        event: 'data_updated',
        organization: 'org_a',
        dataset: 'events',
        count: 42,
        id: data.id,
        occurredAt: data.time,
      },
    ]);
    expect(bodies(receivers.results!.calls)).to.deep.equal([
      {
        event: 'request_completed',
        requestId: 'req_9',
        result: 'Hello',
        model: 'builtin',
        usage: { totalTokens: 7 },
        id: result.id,
        occurredAt: result.time,
      },
    ]);
    const [threshold] = bodies(receivers.usage!.calls);
    expect(threshold).to.include({
      event: 'usage_threshold',
      organization: 'org_a',
      usage: 600,
      threshold: 500,
    });
    expect(threshold!.id).to.be.a('string');
  });

  it('delivers a result to webhookUrl signed with the organization secret, with error on failure', async () => {
    const url = receivers.callback!.url('/cb');
    const completed = createEvent('request.completed', {
      source: 'content',
      organization: 'org_a',
      data: {
        requestId: 'req_1',
        webhookUrl: url,
        result: 'Done',
        model: 'builtin',
        usage: { totalTokens: 12 },
      },
    });
    const failed = createEvent('request.failed', {
      source: 'content',
      organization: 'org_a',
      data: {
        requestId: 'req_2',
        webhookUrl: url,
        result: 'partial',
        model: 'builtin',
        usage: { totalTokens: 3 },
        error: { code: 'upstream_error', message: 'model failed' },
      },
    });
    await svc.bus.publish(completed);
    await svc.bus.publish(failed);
    const calls = await until(() =>
      receivers.callback!.calls.length === 2 ? receivers.callback!.calls : undefined,
    );
    const { secret } = await svc.call<SigningSecret__Output>('GetSigningSecret', {});
    for (const call of calls) expect(() => verifyWithLibrary(secret, call)).not.to.throw();
    expect(bodies(calls)).to.have.deep.members([
      { requestId: 'req_1', result: 'Done', model: 'builtin', usage: { totalTokens: 12 } },
      {
        requestId: 'req_2',
        result: '',
        model: 'builtin',
        usage: { totalTokens: 3 },
        error: { code: 'upstream_error', message: 'model failed' },
      },
    ]);
    const list = await svc.call<ListDeliveriesResponse__Output>('ListDeliveries', {
      webhook_id: 'callback',
    });
    expect(list.deliveries.map((d) => d.webhook_id)).to.deep.equal(['callback', 'callback']);
  });

  it("signs the dev organization's callbacks with DEV_SIGNING_SECRET", async () => {
    const event = createEvent('request.completed', {
      source: 'content',
      organization: 'dev',
      data: {
        requestId: 'req_3',
        webhookUrl: receivers.callback!.url(),
        result: 'ok',
        model: 'builtin',
        usage: { totalTokens: 1 },
      },
    });
    await svc.bus.publish(event);
    const [call] = await until(() =>
      receivers.callback!.calls.length === 1 ? receivers.callback!.calls : undefined,
    );
    expect(() => verifyWithLibrary(DEV_SECRET, call!)).not.to.throw();
    expect((await svc.call<SigningSecret__Output>('GetSigningSecret', {}, 'dev')).secret).to.equal(
      DEV_SECRET,
    );
  });

  it('creates no second delivery for a redelivered event id', async () => {
    await register('data', ['data_updated']);
    const event = createEvent('data.updated', {
      source: 'ingest',
      organization: 'org_a',
      data: { dataset: 'd', count: 1 },
    });
    await svc.bus.publish(event);
    await until(() => receivers.data!.calls.length === 1);
    await svc.bus.publish(event);
    await svc.bus.publish(event);
    await until(() => svc.bus.lag('notification') === 0);
    await pause(150);
    expect(receivers.data!.calls).to.have.length(1);
    const list = await svc.call<ListDeliveriesResponse__Output>('ListDeliveries', {});
    expect(list.deliveries).to.have.length(1);
  });

  it('stays idempotent on a redelivery after the deliveries were created (delivery identity includes the event id)', async () => {
    await register('data', ['data_updated']);
    const event = createEvent('data.updated', {
      source: 'ingest',
      organization: 'org_a',
      data: { dataset: 'd', count: 1 },
    });
    await svc.bus.publish(event);
    await until(() => receivers.data!.calls.length === 1);
    // As after a crash between creating the deliveries and acknowledging the event.
    await svc.bus.publish(event);
    await until(() => svc.bus.lag('notification') === 0);
    await pause(150);
    expect(receivers.data!.calls).to.have.length(1);
  });

  it('checks domain events from the topic against their type: refused ones go to the dead letters, counted', async () => {
    const schema = {
      type: 'object',
      required: ['orderId'],
      properties: { orderId: { type: 'string' } },
    };
    await svc.call('CreateEventType', {
      name: 'order.shipped',
      description: '',
      schema_json: JSON.stringify(schema),
    });
    await register('data', ['order.shipped']);
    const rejected = async (reason: string) =>
      Number(
        (
          await notificationMetrics.getSingleMetricAsString(
            'notification_domain_events_rejected_total',
          )
        ).match(new RegExp(`reason="${reason}"} (\\d+)`))?.[1] ?? 0,
      );
    const before = { schema: await rejected('schema'), unknown: await rejected('unknown_type') };
    // As a producer writes them: no schema version.
    const produced = (type: string, data: Record<string, unknown>, organization = 'org_a') =>
      createEvent('domain.event', { source: 'shop', organization, data: { type, data } });
    const valid = produced('order.shipped', { orderId: 'o-1' });
    const invalid = produced('order.shipped', { orderId: 42 });
    const unknown = produced('order.lost', { orderId: 'o-2' });
    const otherOrg = produced('order.shipped', { orderId: 'o-3' }, 'org_b');
    for (const event of [invalid, valid, unknown, otherOrg]) await svc.bus.publish(event);

    await until(() => receivers.data!.calls.length === 1);
    await until(() => svc.bus.lag('notification') === 0);
    await pause(150);
    const [body] = bodies(receivers.data!.calls);
    expect(body).to.include({ event: 'order.shipped', id: valid.id, schemaVersion: 1 });
    expect(body!.data).to.deep.equal({ orderId: 'o-1' });
    const letters = svc.bus.deadLetters.map((d) => ({ id: d.event.id, error: d.error }));
    expect(letters.map((l) => l.id)).to.deep.equal([invalid.id, unknown.id, otherOrg.id]);
    expect(letters[0]!.error).to.equal(
      'data does not match order.shipped version 1: /data/orderId must be string',
    );
    expect(letters[1]!.error).to.equal(
      'event type order.lost is not defined by organization org_a',
    );
    expect(letters[2]!.error).to.equal(
      'event type order.shipped is not defined by organization org_b',
    );
    expect(await rejected('schema')).to.equal(before.schema + 1);
    expect(await rejected('unknown_type')).to.equal(before.unknown + 2);
    const list = await svc.call<ListDeliveriesResponse__Output>('ListDeliveries', {});
    expect(list.deliveries.map((d) => d.event_id)).to.deep.equal([valid.id]);
  });

  it('dead-letters a refused domain event once when its batch is handled again', async () => {
    await svc.call('CreateEventType', {
      name: 'order.shipped',
      description: '',
      schema_json: JSON.stringify({ type: 'object', required: ['orderId'] }),
    });
    await register('data', ['order.shipped']);
    const produced = (data: Record<string, unknown>) =>
      createEvent('domain.event', {
        source: 'shop',
        organization: 'org_a',
        data: { type: 'order.shipped', data },
      });
    const invalid = produced({});
    const valid = produced({ orderId: 'o-1' });
    // The batch's delivery log write fails once, after the refused event was dead-lettered: the
    // bus handles the batch again.
    const deliveries = svc.service.stores.deliveries;
    const insert = deliveries.insert.bind(deliveries);
    let failures = 0;
    deliveries.insert = async (records) => {
      if (failures++ === 0) throw new Error('delivery log unavailable');
      return insert(records);
    };
    await Promise.all([svc.bus.publish(invalid), svc.bus.publish(valid)]);
    await until(() => svc.bus.lag('notification') === 0);
    expect(failures).to.be.greaterThan(1);
    // Published again, as after a crash before the commit: still one dead letter.
    await svc.bus.publish(invalid);
    await until(() => svc.bus.lag('notification') === 0);
    await pause(100);
    expect(svc.bus.deadLetters.map((d) => d.event.id)).to.deep.equal([invalid.id]);
    expect(receivers.data!.calls.map((c) => JSON.parse(c.body).id)).to.deep.equal([valid.id]);
  });

  it('lists the events fanned out (but request_completed) once, also when their write fails and the batch is handled again', async () => {
    await register('invoices', ['invoice_paid']);
    await register('all', ['invoice_paid', 'data_updated', 'usage_threshold']);
    const paid = invoicePaid();
    const data = dataUpdated();
    const result = requestCompleted();
    // The batch's write of its events fails once: the bus handles the batch again.
    const events = svc.service.stores.events;
    const record = events.record.bind(events);
    let failures = 0;
    events.record = async (recorded) => {
      if (recorded.length > 0 && failures++ === 0) throw new Error('event store unavailable');
      return record(recorded);
    };
    await Promise.all([paid, data, result].map((event) => svc.bus.publish(event)));
    await until(() => svc.bus.lag('notification') === 0);
    await svc.bus.publish(paid);
    await svc.bus.publish(usageEvent('org_a', 600));
    await until(() => receivers.all!.calls.length === 3);
    await until(() => svc.bus.lag('notification') === 0);
    expect(failures).to.be.greaterThan(1);

    const listed = await until(async () => {
      const page = await svc.call<ListEventsResponse__Output>('ListEvents', {});
      return page.events.length === 3 && page;
    });
    const byType = Object.fromEntries(listed.events.map((e) => [e.type, e]));
    expect(Object.keys(byType).sort()).to.deep.equal([
      'data_updated',
      'invoice_paid',
      'usage_threshold',
    ]);
    expect(byType.invoice_paid).to.include({ id: paid.id, occurred_at: paid.time, deliveries: 2 });
    expect(JSON.parse(byType.invoice_paid!.data_json)).to.deep.equal({
      invoiceId: 'inv_1',
      amount: 12.5,
      currency: 'EUR',
    });
    expect(byType.data_updated).to.include({ id: data.id, deliveries: 1, key: '' });
    expect(byType.usage_threshold).to.include({ deliveries: 1 });
    expect(receivers.invoices!.calls).to.have.length(1);
  });

  it('notifies each usage threshold exactly once despite duplicate and replayed usage events', async () => {
    const secret = await register('usage', ['usage_threshold']);
    await register('other', ['usage_threshold'], 'org_b');
    const first = usageEvent('org_a', 300);
    const second = usageEvent('org_a', 300);
    await svc.bus.publish(first);
    await svc.bus.publish(second); // 600 >= 500: share 0.5
    await svc.bus.publish(second); // duplicate: not counted again
    await svc.bus.publish(first);
    await svc.bus.publish(usageEvent('org_a', 350)); // 950: below 1000
    await svc.bus.publish(usageEvent('org_a', 100)); // 1050: share 1.0
    await svc.bus.publish(usageEvent('org_a', 500)); // past both: nothing new
    await svc.bus.publish(usageEvent('org_b', 10));
    await until(() => svc.bus.lag('notification') === 0);
    await until(() => receivers.usage!.calls.length === 2);
    await pause(150);
    expect(receivers.usage!.calls).to.have.length(2);
    expect(receivers.other!.calls).to.have.length(0);
    for (const call of receivers.usage!.calls)
      expect(() => verifyWithLibrary(secret, call)).not.to.throw();
    const sent = bodies(receivers.usage!.calls).map(
      ({ event, organization, usage, threshold }) => ({ event, organization, usage, threshold }),
    );
    expect(sent).to.have.deep.members([
      { event: 'usage_threshold', organization: 'org_a', usage: 600, threshold: 500 },
      { event: 'usage_threshold', organization: 'org_a', usage: 1050, threshold: 1000 },
    ]);
    const totals = await svc.service.stores.usageLedger.totals('org_a', '2026-11');
    expect(totals.tokensInput + totals.tokensOutput).to.equal(1550);
    expect(totals.calls).to.equal(5);
  });
});
