import { expect } from 'chai';
import { waitFor } from '@switchyard/shared/testing';
import { api } from '../support/http';
import { WebhookReceiver, type ReceivedCall } from '../support/receiver';
import { verifyWithStandardWebhooks } from '../support/signatures';

const ORDER_SCHEMA = {
  type: 'object',
  required: ['orderId', 'country'],
  properties: {
    orderId: { type: 'string', minLength: 1 },
    country: { type: 'string', pattern: '^[A-Z]{2}$' },
    total: { type: 'number', minimum: 0 },
  },
};

let counter = 0;
/** A namespace of this test's own: the shared mesh keeps types and webhooks between tests. */
const namespace = () => `shop${Date.now().toString(36)}${counter++}`;

/**
 * Domain events published over HTTP reach the webhooks subscribed to their type (by name or
 * prefix), signed the Standard Webhooks way, checked by a real HTTP receiver.
 */
describe('e2e: publishing domain events over HTTP', function () {
  this.timeout(30_000);
  let receiver: WebhookReceiver;
  let webhookIds: string[] = [];

  async function defineType(name: string, schema: object = ORDER_SCHEMA): Promise<void> {
    const res = await api('/api/v2/event-types', { body: { name, schema } });
    expect(res.status, res.text).to.equal(201);
  }

  async function subscribe(
    events: string[],
    path = '/',
    filter?: object,
  ): Promise<{ id: string; secret: string }> {
    const res = await api('/api/webhooks', {
      body: { events, url: `${receiver.url}${path}`, ...(filter && { filter }) },
    });
    expect(res.status, res.text).to.equal(201);
    webhookIds.push(res.body.id);
    return res.body;
  }

  const callsOf = (eventId: string): ReceivedCall[] =>
    receiver.calls.filter((c) => c.body?.id === eventId);

  beforeEach(async () => {
    receiver = await new WebhookReceiver().start();
    webhookIds = [];
  });

  afterEach(async () => {
    for (const id of webhookIds) await api(`/api/webhooks/${id}`, { method: 'DELETE' });
    await receiver.stop();
  });

  it('delivers a published event, signed, to webhooks of its type and of its prefix only', async () => {
    const ns = namespace();
    await defineType(`${ns}.order.shipped`);
    await defineType(`${ns}.ticket.refunded`, { type: 'object' });
    const byName = await subscribe([`${ns}.order.shipped`], '/by-name');
    const byPrefix = await subscribe([`${ns}.order.*`], '/by-prefix');
    await subscribe([`${ns}.ticket.refunded`], '/other');

    const data = { orderId: 'o-1042', country: 'DE', total: 12.5 };
    const res = await api('/api/v2/events', {
      body: { type: `${ns}.order.shipped`, data, key: 'order-1042' },
    });
    expect(res.status, res.text).to.equal(202);
    expect(res.body.id).to.match(/^evt_/);

    await waitFor(() => callsOf(res.body.id).length >= 2, 10_000);
    await new Promise((resolve) => setTimeout(resolve, 300)); // a stray call would arrive by now
    const calls = callsOf(res.body.id);
    expect(calls.map((c) => c.path.replace(/^.*\//, '/')).sort()).to.deep.equal([
      '/by-name',
      '/by-prefix',
    ]);
    verifyWithStandardWebhooks(
      byName.secret,
      calls.find((c) => c.path.endsWith('/by-name'))!,
    );
    verifyWithStandardWebhooks(
      byPrefix.secret,
      calls.find((c) => c.path.endsWith('/by-prefix'))!,
    );
    expect(calls[0]!.body).to.deep.include({
      event: `${ns}.order.shipped`,
      organization: 'dev',
      id: res.body.id,
      key: 'order-1042',
      schemaVersion: 1,
      data,
    });
    expect(calls[0]!.headers['webhook-id']).to.be.a('string');
  });

  it('answers 400 with each failing JSON pointer and 404 for an unknown or deleted type', async () => {
    const ns = namespace();
    await defineType(`${ns}.order.shipped`);
    const bad = await api('/api/v2/events', {
      body: { type: `${ns}.order.shipped`, data: { orderId: '', country: 'de', total: -1 } },
    });
    expect(bad.status, bad.text).to.equal(400);
    expect(bad.body.error.code).to.equal('invalid_request');
    expect(bad.body.error.details.map((d: { field: string }) => d.field).sort()).to.deep.equal([
      '/data/country',
      '/data/orderId',
      '/data/total',
    ]);
    const missing = await api('/api/v2/events', {
      body: { type: `${ns}.order.shipped`, data: { total: 1 } },
    });
    expect(missing.status).to.equal(400);
    expect(missing.body.error.details[0].field).to.equal('/data');
    expect(missing.body.error.details[0].reason).to.match(/orderId/);

    const unknown = await api('/api/v2/events', {
      body: { type: `${ns}.order.lost`, data: {} },
    });
    expect(unknown.status).to.equal(404);
    await api(`/api/v2/event-types/${ns}.order.shipped`, { method: 'DELETE' });
    const deleted = await api('/api/v2/events', {
      body: { type: `${ns}.order.shipped`, data: { orderId: 'o', country: 'DE' } },
    });
    expect(deleted.status).to.equal(404);
    expect(deleted.body.error.message).to.match(/deleted/);
  });

  it('checks events against the newest schema version', async () => {
    const ns = namespace();
    await defineType(`${ns}.order.shipped`);
    const put = await api(`/api/v2/event-types/${ns}.order.shipped`, {
      method: 'PUT',
      body: { schema: { ...ORDER_SCHEMA, required: ['orderId'] } },
    });
    expect(put.status).to.equal(200);
    const hook = await subscribe([`${ns}.order.shipped`]);
    const res = await api('/api/v2/events', {
      body: { type: `${ns}.order.shipped`, data: { orderId: 'o-1' } },
    });
    expect(res.status, res.text).to.equal(202);
    await waitFor(() => callsOf(res.body.id).length === 1, 10_000);
    verifyWithStandardWebhooks(hook.secret, callsOf(res.body.id)[0]!);
    expect(callsOf(res.body.id)[0]!.body).to.include({ schemaVersion: 2, key: null });
  });

  it('creates nothing new for a repeated id or Idempotency-Key', async () => {
    const ns = namespace();
    await defineType(`${ns}.order.shipped`);
    await subscribe([`${ns}.order.shipped`]);
    const event = { type: `${ns}.order.shipped`, data: { orderId: 'o-7', country: 'AT' } };
    const id = `evt_${ns}_1`;
    for (let i = 0; i < 2; i++) {
      const res = await api('/api/v2/events', { body: { ...event, id } });
      expect(res.status).to.equal(202);
      expect(res.body.id).to.equal(id);
    }
    const headers = { 'idempotency-key': `${ns}-key` };
    const first = await api('/api/v2/events', { body: event, headers });
    const again = await api('/api/v2/events', { body: event, headers });
    expect(again.body.id).to.equal(first.body.id);
    expect(again.headers.get('idempotent-replayed')).to.equal('true');
    // A later event of the same organization comes after the repeats: once it is here, they are.
    const last = await api('/api/v2/events', { body: event });
    await waitFor(() => callsOf(last.body.id).length === 1, 10_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(callsOf(id)).to.have.length(1);
    expect(callsOf(first.body.id)).to.have.length(1);
  });

  it('publishes a batch with one answer per event; the accepted ones are delivered', async () => {
    const ns = namespace();
    await defineType(`${ns}.order.shipped`);
    const hook = await subscribe([`${ns}.order.*`]);
    const res = await api('/api/v2/events', {
      body: {
        events: [
          { type: `${ns}.order.shipped`, data: { orderId: 'a', country: 'DE' }, key: 'a' },
          { type: `${ns}.order.shipped`, data: { orderId: 'b', country: 'germany' } },
          { type: `${ns}.order.unknown`, data: {} },
          { type: `${ns}.order.shipped`, data: { orderId: 'c', country: 'FR' }, id: `evt_${ns}` },
        ],
      },
    });
    expect(res.status, res.text).to.equal(200);
    const results = res.body.results;
    expect(results.map((r: { status: number }) => r.status)).to.deep.equal([202, 400, 404, 202]);
    expect(results[1].error.details[0].field).to.equal('/data/country');
    expect(results[3].id).to.equal(`evt_${ns}`);
    await waitFor(() => callsOf(results[3].id).length === 1, 10_000);
    await waitFor(() => callsOf(results[0].id).length === 1, 10_000);
    verifyWithStandardWebhooks(hook.secret, callsOf(results[0].id)[0]!);
    expect(callsOf(results[1].id)).to.have.length(0);

    const tooMany = await api('/api/v2/events', {
      body: {
        events: Array.from({ length: 101 }, () => ({ type: `${ns}.order.shipped`, data: {} })),
      },
    });
    expect(tooMany.status).to.equal(400);
  });

  it('subscribes only to types the organization has (or prefixes)', async () => {
    const ns = namespace();
    const unknown = await api('/api/webhooks', {
      body: { events: [`${ns}.order.shipped`], url: receiver.url },
    });
    expect(unknown.status).to.equal(400);
    expect(unknown.body.error.details[0].field).to.equal('/events/0');
    const bad = await api('/api/webhooks', { body: { events: ['Order.*'], url: receiver.url } });
    expect(bad.status).to.equal(400);
    // The bus's name of a built-in event is not a webhook event: the answer lists those.
    const busName = await api('/api/webhooks', {
      body: { events: ['invoice.paid'], url: receiver.url },
    });
    expect(busName.status).to.equal(400);
    expect(busName.body.error.message).to.include('invoice_paid');
    await defineType(`${ns}.order.shipped`);
    await subscribe([`${ns}.order.shipped`, 'invoice_paid', `${ns}.*`]);
  });

  it('delivers only events whose payload passes the webhook filter (equality, $in)', async () => {
    const ns = namespace();
    await defineType(`${ns}.order.shipped`, {
      type: 'object',
      properties: { country: { type: 'string' }, express: { type: 'boolean' } },
    });
    const dach = await subscribe([`${ns}.order.*`], '/dach', {
      'data.country': { $in: ['DE', 'AT'] },
    });
    const express = await subscribe([`${ns}.order.shipped`], '/express', {
      'data.express': true,
      key: 'k-1',
    });
    const read = await api(`/api/webhooks/${dach.id}`);
    expect(read.body.filter).to.deep.equal({ 'data.country': { $in: ['DE', 'AT'] } });
    expect((await api(`/api/webhooks/${express.id}`)).body.filter).to.deep.equal({
      'data.express': true,
      key: 'k-1',
    });

    const published: Record<string, string> = {};
    for (const [name, data, key] of [
      ['de', { country: 'DE', express: true }, 'k-1'],
      ['fr', { country: 'FR', express: true }, 'k-1'],
      ['at', { country: 'AT' }, 'k-2'],
      ['none', {}, 'k-1'],
    ] as const) {
      const res = await api('/api/v2/events', { body: { type: `${ns}.order.shipped`, data, key } });
      expect(res.status, res.text).to.equal(202);
      published[name] = res.body.id;
    }
    const hits = () =>
      receiver.calls.map((c) => `${c.path.replace(/^.*\//, '')}:${c.body.data?.country ?? '-'}`);
    await waitFor(() => hits().length >= 4, 10_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(hits().sort()).to.deep.equal(['dach:AT', 'dach:DE', 'express:DE', 'express:FR']);
    for (const call of receiver.calls)
      verifyWithStandardWebhooks(call.path.endsWith('/dach') ? dach.secret : express.secret, call);

    // {} removes the filter: every event of the type goes.
    const cleared = await api(`/api/webhooks/${dach.id}`, {
      method: 'PATCH',
      body: { filter: {} },
    });
    expect(cleared.status, cleared.text).to.equal(200);
    expect(cleared.body.filter).to.equal(undefined);
    const after = await api('/api/v2/events', {
      body: { type: `${ns}.order.shipped`, data: { country: 'FR' } },
    });
    await waitFor(() => callsOf(after.body.id).length === 1, 10_000);
  });

  it('checks a filter when saved: operators, paths and values, 400 naming the problem', async () => {
    const ns = namespace();
    await defineType(`${ns}.order.shipped`);
    const cases: Array<[object, string, RegExp]> = [
      [{ 'data.total': { $gt: 10 } }, '/filter/data.total', /\$gt/],
      [{ 'data.country': ['DE'] }, '/filter/data.country', /\$in/],
      [{ 'data.country': { $in: [] } }, '/filter/data.country/$in', /\$in takes/],
      [{ 'data.country': { $in: [{ a: 1 }] } }, '/filter/data.country/$in', /\$in takes/],
      [{ 'data..country': 'DE' }, '/filter/data..country', /dotted/],
    ];
    for (const [filter, field, message] of cases) {
      const res = await api('/api/webhooks', {
        body: { events: [`${ns}.order.shipped`], url: receiver.url, filter },
      });
      expect(res.status, JSON.stringify(filter)).to.equal(400);
      expect(res.body.error.message).to.match(message);
      expect(res.body.error.details[0].field).to.equal(field);
    }
  });
});
