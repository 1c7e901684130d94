import { expect } from 'chai';
import { waitFor } from '@switchyard/shared/testing';
import { WebhookReceiver, type ReceivedCall } from '../support/receiver';
import type { MeshTarget } from './target';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function describeOrderedDelivery(target: MeshTarget): void {
  const { api } = target;
  /**
   * Events with a key reach a webhook in publish order, the next only once the one before it
   * succeeded (retries included), while other keys and events without one keep flowing: checked
   * with a real receiver that answers one key slowly and fails one of its events once.
   */
  describe(`${target.name}: deliveries in order per key`, function () {
    this.timeout(120_000);
    let receiver: WebhookReceiver;
    let webhookId: string;

    afterEach(async () => {
      if (webhookId) await api(`/api/webhooks/${webhookId}`, { method: 'DELETE' });
      await receiver.stop();
    });

    it('sends one key in order behind a slow, failing receiver while other keys go on', async () => {
      const type = `ord${Date.now().toString(36)}.order.updated`;
      const created = await api('/api/v2/event-types', {
        body: {
          name: type,
          schema: { type: 'object', required: ['n'], properties: { n: { type: 'integer' } } },
        },
      });
      expect(created.status, created.text).to.equal(201);
      // Key "slow": every answer takes 300 ms, and its second event fails once (then is retried).
      let failedOnce = false;
      const answeredAt = new Map<string, number>();
      receiver = await new WebhookReceiver()
        .respondWith(async (call: ReceivedCall) => {
          if (call.body.key !== 'slow') return { status: 200 };
          await pause(300);
          if (call.body.data.n === 1 && !failedOnce) {
            failedOnce = true;
            return { status: 503 };
          }
          answeredAt.set(call.body.id, Date.now());
          return { status: 200 };
        })
        .start();
      const webhook = await api('/api/webhooks', { body: { events: [type], url: receiver.url } });
      expect(webhook.status, webhook.text).to.equal(201);
      webhookId = webhook.body.id;

      // Interleaved as they happen: the slow key, a fast key, events without a key.
      const events = [];
      for (let n = 0; n < 5; n++)
        events.push(
          { type, key: 'slow', data: { n } },
          { type, key: 'fast', data: { n } },
          { type, data: { n } },
        );
      const published = await api('/api/v2/events', { body: { events } });
      expect(published.status, published.text).to.equal(200);
      const ids = published.body.results.map((r: { id: string }) => r.id) as string[];
      const slowIds = ids.filter((_, i) => i % 3 === 0);
      const fastIds = ids.filter((_, i) => i % 3 === 1);

      const successes = (key: string | null) =>
        receiver.calls.filter(
          (c) => c.body.key === key && (key !== 'slow' || answeredAt.has(c.body.id)),
        );
      // The fast key and the keyless events are all through while the slow key is still going.
      await waitFor(() => successes('fast').length === 5 && successes(null).length === 5, 30_000);
      expect(answeredAt.size, 'slow key still in progress').to.be.below(5);
      await waitFor(() => answeredAt.size === 5, 60_000);

      const slowCalls = receiver.calls.filter((c) => c.body.key === 'slow');
      // Publish order, the failed one retried in its place: 0, 1 (503), 1, 2, 3, 4.
      expect(slowCalls.map((c) => c.body.data.n)).to.deep.equal([0, 1, 1, 2, 3, 4]);
      expect(slowCalls.map((c) => c.body.id)).to.deep.equal([
        slowIds[0],
        slowIds[1],
        ...slowIds.slice(1),
      ]);
      // Each one only after the one before it had succeeded.
      for (let n = 1; n < 5; n++) {
        const sent = slowCalls.find((c) => c.body.id === slowIds[n])!.receivedAt;
        expect(sent, `event ${n}`).to.be.at.least(answeredAt.get(slowIds[n - 1]!)!);
      }
      expect(successes('fast').map((c) => c.body.id)).to.deep.equal(fastIds);
    });
  });
}
