import { expect } from 'chai';
import { uniqueName, waitFor } from '@switchyard/shared/testing';
import { WebhookReceiver } from '../support/receiver';
import type { MeshTarget } from './target';

export function describeWebhookControls(target: MeshTarget): void {
  const { api } = target;
  /** Operators' controls of a webhook, through the gateway: its rate limit and recovering failures. */
  describe(`${target.name}: webhook rate limits and recovery`, function () {
    this.timeout(120_000);
    let receiver: WebhookReceiver;
    let webhookIds: string[] = [];

    async function defineType(): Promise<string> {
      const name = `${uniqueName('ctl')}.order.shipped`;
      const res = await api('/api/v2/event-types', {
        body: {
          name,
          schema: { type: 'object', required: ['n'], properties: { n: { type: 'integer' } } },
        },
      });
      expect(res.status, res.text).to.equal(201);
      return name;
    }

    async function subscribe(body: object): Promise<{ id: string; rateLimit: number | null }> {
      const res = await api('/api/webhooks', { body: { url: receiver.url, ...body } });
      expect(res.status, res.text).to.equal(201);
      webhookIds.push(res.body.id);
      return res.body;
    }

    async function publish(type: string, count: number): Promise<string[]> {
      const events = Array.from({ length: count }, (_, n) => ({ type, data: { n } }));
      const res = await api('/api/v2/events', { body: { events } });
      expect(res.status, res.text).to.equal(200);
      return res.body.results.map((r: { id: string }) => r.id);
    }

    beforeEach(async () => {
      receiver = await new WebhookReceiver().start();
      webhookIds = [];
    });

    afterEach(async () => {
      for (const id of webhookIds) await api(`/api/webhooks/${id}`, { method: 'DELETE' });
      await receiver.stop();
    });

    it('sends at most rateLimit deliveries per second to a webhook, and all of them', async () => {
      const type = await defineType();
      const webhook = await subscribe({ events: [type], rateLimit: 4 });
      expect(webhook.rateLimit).to.equal(4);
      expect((await api(`/api/webhooks/${webhook.id}`)).body.rateLimit).to.equal(4);

      const publishedAt = Date.now();
      const ids = await publish(type, 12);
      await waitFor(() => receiver.calls.length >= 12, 60_000);
      expect(receiver.calls.map((c) => c.body.id).sort()).to.deep.equal([...ids].sort());
      const times = receiver.calls.map((c) => c.receivedAt).sort((a, b) => a - b);
      // Slots are 250 ms apart from the first, which is no earlier than the publish: the k-th send
      // cannot be received before k slots have passed. A busy machine only makes sends later (a
      // late send can land close to the next one, so gaps between receipts prove nothing); 20 ms
      // for timers firing a little early. Without the limit all 12 arrive within a slot or two.
      for (let k = 1; k < times.length; k++)
        expect(times[k]! - publishedAt, `send ${k}`).to.be.at.least(k * 250 - 20);
    });

    it('changes and removes a rate limit with PATCH, refusing one out of range', async () => {
      const type = await defineType();
      const webhook = await subscribe({ events: [type] });
      expect(webhook.rateLimit).to.equal(null);
      const set = await api(`/api/webhooks/${webhook.id}`, {
        method: 'PATCH',
        body: { rateLimit: 1 },
      });
      expect(set.status, set.text).to.equal(200);
      expect(set.body.rateLimit).to.equal(1);
      const bad = await api(`/api/webhooks/${webhook.id}`, {
        method: 'PATCH',
        body: { rateLimit: 0 },
      });
      expect(bad.status).to.equal(400);
      expect(bad.body.error.details[0].field).to.equal('/rateLimit');
      const removed = await api(`/api/webhooks/${webhook.id}`, {
        method: 'PATCH',
        body: { rateLimit: null },
      });
      expect(removed.body.rateLimit).to.equal(null);
      // Without a limit, a burst is not spread out: the limit of 1 would have taken 9 s.
      await publish(type, 10);
      await waitFor(() => receiver.calls.length >= 10, 30_000);
      const times = receiver.calls.map((c) => c.receivedAt);
      expect(Math.max(...times) - Math.min(...times)).to.be.below(9000);
    });

    it('recovers every failed delivery since a time: sent again once, earlier ones left alone', async () => {
      const type = await defineType();
      const webhook = await subscribe({ events: [type] });
      const failed = async () =>
        (await api(`/api/webhooks/${webhook.id}/deliveries?status=failed&limit=100`)).body
          .deliveries as Array<{ eventId: string }>;
      receiver.respondWith(() => ({ status: 500, body: 'down' }));
      const [before] = await publish(type, 1);
      await waitFor(async () => (await failed()).length === 1, 30_000);
      await new Promise((resolve) => setTimeout(resolve, 20));
      const since = new Date().toISOString();
      const ids = await publish(type, 3);
      await waitFor(async () => (await failed()).length === 4, 30_000);

      receiver.respondWith(() => ({ status: 200, body: 'ok' }));
      const failedCalls = receiver.calls.length;
      const res = await api(`/api/webhooks/${webhook.id}/recover`, { body: { since } });
      expect(res.status, res.text).to.equal(200);
      expect(res.body).to.deep.equal({ recovered: 3 });
      await waitFor(() => receiver.calls.length >= failedCalls + 3, 30_000);
      const resent = receiver.calls.slice(failedCalls);
      expect(resent.map((c) => c.body.id).sort()).to.deep.equal([...ids].sort());
      // The same webhook-id as the failed attempts: a receiver that processed one can dedupe.
      for (const call of resent) {
        const earlier = receiver.calls.find((c) => c.body.id === call.body.id)!;
        expect(call.headers['webhook-id']).to.equal(earlier.headers['webhook-id']);
      }
      expect(resent.map((c) => c.body.id)).not.to.include(before);

      // Recovered ones succeeded since: a repeat sends nothing.
      const again = await api(`/api/webhooks/${webhook.id}/recover`, { body: { since } });
      expect(again.body).to.deep.equal({ recovered: 0 });
      const bad = await api(`/api/webhooks/${webhook.id}/recover`, {
        body: { since: 'yesterday' },
      });
      expect(bad.status).to.equal(400);
      const unknown = await api('/api/webhooks/wh_nope/recover', { body: { since } });
      expect(unknown.status).to.equal(404);
    });
  });
}
