import { expect } from 'chai';
import { uniqueName, waitFor } from '@switchyard/shared/testing';
import { WebhookReceiver, type ReceivedCall } from '../support/receiver';
import { verifyWithStandardWebhooks } from '../support/signatures';
import type { MeshTarget } from './target';

const ORDER_SCHEMA = {
  type: 'object',
  required: ['orderId', 'country'],
  properties: {
    orderId: { type: 'string', minLength: 1 },
    country: { type: 'string', pattern: '^[A-Z]{2}$' },
    total: { type: 'number', minimum: 0 },
  },
};

export function describeDomainEvents(target: MeshTarget): void {
  const { api } = target;
  /**
   * Domain events published over HTTP reach the webhooks subscribed to their type (by name or
   * prefix), signed the Standard Webhooks way, checked by a real HTTP receiver.
   */
  describe(`${target.name}: publishing domain events over HTTP`, function () {
    this.timeout(120_000);
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
      const ns = uniqueName('shop');
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

      await waitFor(() => callsOf(res.body.id).length >= 2, 30_000);
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
      const ns = uniqueName('shop');
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
      const ns = uniqueName('shop');
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
      await waitFor(() => callsOf(res.body.id).length === 1, 30_000);
      verifyWithStandardWebhooks(hook.secret, callsOf(res.body.id)[0]!);
      expect(callsOf(res.body.id)[0]!.body).to.include({ schemaVersion: 2, key: null });
    });

    it('creates nothing new for a repeated id or Idempotency-Key', async () => {
      const ns = uniqueName('shop');
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
      await waitFor(() => callsOf(last.body.id).length === 1, 30_000);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(callsOf(id)).to.have.length(1);
      expect(callsOf(first.body.id)).to.have.length(1);
    });

    it('publishes a batch with one answer per event; the accepted ones are delivered', async () => {
      const ns = uniqueName('shop');
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
      await waitFor(() => callsOf(results[3].id).length === 1, 30_000);
      await waitFor(() => callsOf(results[0].id).length === 1, 30_000);
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
      const ns = uniqueName('shop');
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
      const ns = uniqueName('shop');
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
        const res = await api('/api/v2/events', {
          body: { type: `${ns}.order.shipped`, data, key },
        });
        expect(res.status, res.text).to.equal(202);
        published[name] = res.body.id;
      }
      const hits = () =>
        receiver.calls.map((c) => `${c.path.replace(/^.*\//, '')}:${c.body.data?.country ?? '-'}`);
      await waitFor(() => hits().length >= 4, 30_000);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(hits().sort()).to.deep.equal(['dach:AT', 'dach:DE', 'express:DE', 'express:FR']);
      for (const call of receiver.calls)
        verifyWithStandardWebhooks(
          call.path.endsWith('/dach') ? dach.secret : express.secret,
          call,
        );

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
      await waitFor(() => callsOf(after.body.id).length === 1, 30_000);
    });

    it('checks a filter when saved: operators, paths and values, 400 naming the problem', async () => {
      const ns = uniqueName('shop');
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

  interface ListedEvent {
    id: string;
    type: string;
    key: string | null;
    schemaVersion: number | null;
    data: unknown;
    occurredAt: string;
    receivedAt: string;
    deliveries: number;
  }

  /**
   * GET /api/v2/events: the events the notification service accepted, newest first, with how many
   * deliveries each produced; filtered and paged. Each test lists its own namespace (`<ns>.*`):
   * the shared mesh keeps other tests' events.
   */
  describe(`${target.name}: listing recent events`, function () {
    this.timeout(120_000);
    let receiver: WebhookReceiver;
    const webhookIds: string[] = [];

    async function define(name: string): Promise<void> {
      const res = await api('/api/v2/event-types', { body: { name, schema: ORDER_SCHEMA } });
      expect(res.status, res.text).to.equal(201);
    }

    async function subscribe(events: string[]): Promise<string> {
      const res = await api('/api/webhooks', { body: { events, url: receiver.url } });
      expect(res.status, res.text).to.equal(201);
      webhookIds.push(res.body.id);
      return res.body.id;
    }

    async function listed(query: string): Promise<{ events: ListedEvent[]; next: string | null }> {
      const res = await api(`/api/v2/events?${query}`);
      expect(res.status, res.text).to.equal(200);
      return res.body;
    }

    /** Publishes one event and waits until it is listed: the next one is received after it. */
    async function publish(ns: string, body: object): Promise<string> {
      const res = await api('/api/v2/events', { body });
      expect(res.status, res.text).to.equal(202);
      const id = res.body.id as string;
      await waitFor(async () => {
        const page = await listed(`type=${ns}.*&limit=200`);
        return page.events.some((e) => e.id === id);
      }, 30_000);
      return id;
    }

    const data = (orderId: string) => ({ orderId, country: 'DE' });

    beforeEach(async () => {
      receiver = await new WebhookReceiver().start();
    });

    afterEach(async () => {
      for (const id of webhookIds.splice(0)) await api(`/api/webhooks/${id}`, { method: 'DELETE' });
      await receiver.stop();
    });

    it('lists accepted events newest first with their deliveries (none subscribed: 0), one by id, never a refused one', async () => {
      const ns = uniqueName('shop');
      await define(`${ns}.order.shipped`);
      await define(`${ns}.order.paid`);
      await define(`${ns}.ticket.opened`);
      const byPrefix = await subscribe([`${ns}.order.*`]);
      await subscribe([`${ns}.order.shipped`]);

      const shipped = await publish(ns, {
        type: `${ns}.order.shipped`,
        data: data('o-1'),
        key: 'order-1',
      });
      const paid = await publish(ns, {
        type: `${ns}.order.paid`,
        data: data('o-1'),
        key: 'order-1',
      });
      const opened = await publish(ns, { type: `${ns}.ticket.opened`, data: data('o-2') });
      const refused = await api('/api/v2/events', {
        body: { type: `${ns}.order.shipped`, data: { orderId: 'o-3' }, id: `evt_${ns}_refused` },
      });
      expect(refused.status).to.equal(400);

      const page = await listed(`type=${ns}.*`);
      expect(page.next).to.equal(null);
      expect(page.events.map((e) => [e.id, e.type, e.key, e.deliveries])).to.deep.equal([
        [opened, `${ns}.ticket.opened`, null, 0],
        [paid, `${ns}.order.paid`, 'order-1', 1],
        [shipped, `${ns}.order.shipped`, 'order-1', 2],
      ]);
      const first = page.events[2]!;
      expect(first).to.include({ schemaVersion: 1 });
      expect(first.data).to.deep.equal(data('o-1'));
      expect(Date.parse(first.receivedAt)).to.be.at.least(Date.parse(first.occurredAt));

      const one = await api(`/api/v2/events/${shipped}`);
      expect(one.status, one.text).to.equal(200);
      expect(one.body).to.deep.equal(first);
      const unknown = await api(`/api/v2/events/evt_${ns}_refused`);
      expect(unknown.status).to.equal(404);
      expect(unknown.body.error.code).to.equal('not_found');

      // Its deliveries, by event id: the one to the prefix subscriber, answered by the receiver.
      await waitFor(
        () => receiver.calls.filter((c) => c.body?.id === shipped).length === 2,
        30_000,
      );
      const deliveries = await api(`/api/webhooks/${byPrefix}/deliveries?eventId=${shipped}`);
      expect(deliveries.body.deliveries.map((d: { eventId: string }) => d.eventId)).to.deep.equal([
        shipped,
      ]);
    });

    it('filters by type, type prefix, key and received time, and pages with a cursor', async () => {
      const ns = uniqueName('shop');
      await define(`${ns}.order.shipped`);
      await define(`${ns}.order.paid`);
      await define(`${ns}.invoice.sent`);
      const published: string[] = [];
      for (const [type, key] of [
        ['order.shipped', 'order-1'],
        ['order.paid', 'order-1'],
        ['invoice.sent', 'order-1'],
        ['order.shipped', 'order-2'],
        ['order.paid', 'order-2'],
      ] as const)
        published.push(await publish(ns, { type: `${ns}.${type}`, data: data(key), key }));
      const newestFirst = [...published].reverse();
      const ids = async (query: string) => (await listed(query)).events.map((e) => e.id);

      expect(await ids(`type=${ns}.*`)).to.deep.equal(newestFirst);
      expect(await ids(`type=${ns}.order.*`)).to.deep.equal([
        published[4],
        published[3],
        published[1],
        published[0],
      ]);
      expect(await ids(`type=${ns}.order.paid`)).to.deep.equal([published[4], published[1]]);
      expect(await ids(`type=${ns}.*&key=order-1`)).to.deep.equal([
        published[2],
        published[1],
        published[0],
      ]);
      const all = (await listed(`type=${ns}.*`)).events;
      const since = encodeURIComponent(all[3]!.receivedAt);
      const until = encodeURIComponent(all[1]!.receivedAt);
      expect(await ids(`type=${ns}.*&since=${since}&until=${until}`)).to.deep.equal(
        all
          .filter((e) => e.receivedAt >= all[3]!.receivedAt && e.receivedAt < all[1]!.receivedAt)
          .map((e) => e.id),
      );
      expect(await ids(`type=${ns}.*&since=${since}&until=${until}`)).to.include(published[1]);

      // Pages of two: every event once, newest first; the last page says there is no next.
      const paged: string[] = [];
      let cursor: string | null = '';
      let pages = 0;
      while (cursor !== null && pages++ < 10) {
        const page = await listed(
          `type=${ns}.*&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        );
        expect(page.events.length).to.be.at.most(2);
        paged.push(...page.events.map((e) => e.id));
        cursor = page.next;
      }
      expect(paged).to.deep.equal(newestFirst);
      expect(pages).to.equal(3);

      for (const [query, field] of [
        ['limit=201', '/limit'],
        ['limit=0', '/limit'],
        ['cursor=not-a-cursor', '/cursor'],
        ['type=Order', '/type'],
        ['since=yesterday', '/since'],
        ['owner=me', ''],
      ]) {
        const bad = await api(`/api/v2/events?${query}`);
        expect(bad.status, query).to.equal(400);
        expect(bad.body.error.code).to.equal('invalid_request');
        if (field)
          expect(
            bad.body.error.details.map((d: { field: string }) => d.field),
            query,
          ).to.include(field);
      }
    });

    it('lists an event published again with the same id once', async () => {
      const ns = uniqueName('shop');
      await define(`${ns}.order.shipped`);
      await subscribe([`${ns}.order.shipped`]);
      const event = { type: `${ns}.order.shipped`, data: data('o-9'), id: `evt_${ns}_retried` };
      await publish(ns, event);
      const again = await api('/api/v2/events', { body: event });
      expect(again.status).to.equal(202);
      // A later event comes after the repeat: once it is listed, the repeat was handled.
      const later = await publish(ns, { type: `${ns}.order.shipped`, data: data('o-10') });
      expect((await listed(`type=${ns}.*`)).events.map((e) => [e.id, e.deliveries])).to.deep.equal([
        [later, 1],
        [event.id, 1],
      ]);
    });
  });
}
