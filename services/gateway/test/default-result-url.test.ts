import { expect } from 'chai';
import { AppError, type CallContext } from '@switchyard/shared';
import { silentLogger } from '@switchyard/shared/testing';
import type { GatewayClients } from '../src/clients';
import { DefaultResultUrls } from '../src/read-models/default-result-url';

type Webhook = { enabled: boolean; events: string[] };

/** The notification client's listWebhooks, answering when told to. */
class Notification {
  calls = 0;
  webhooks: Webhook[] = [];
  private pending: Array<{ resolve: () => void; reject: (error: Error) => void }> = [];

  listWebhooks = (): Promise<{ webhooks: Webhook[] }> => {
    this.calls++;
    // The webhooks as they were when the call reached the service.
    const webhooks = [...this.webhooks];
    return new Promise((resolve, reject) => {
      this.pending.push({ resolve: () => resolve({ webhooks }), reject });
    });
  };

  answer(): void {
    for (const call of this.pending.splice(0)) call.resolve();
  }

  fail(error: Error): void {
    for (const call of this.pending.splice(0)) call.reject(error);
  }
}

const call = (n: number, organization = 'org_a'): CallContext => ({
  organization,
  keyId: 'key_1',
  requestId: `req_${n}`,
});
const completedHook: Webhook = { enabled: true, events: ['request_completed'] };
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('default result URL lookup', () => {
  let notification: Notification;
  let urls: DefaultResultUrls;

  beforeEach(() => {
    notification = new Notification();
    urls = new DefaultResultUrls(
      notification as unknown as GatewayClients['notification'],
      silentLogger(),
      5_000,
    );
  });

  it('asks the notification service once for the calls of one organization in flight', async () => {
    notification.webhooks = [completedHook];
    const answers = Array.from({ length: 20 }, (_, n) => urls.has(call(n)));
    const other = urls.has(call(99, 'org_b'));
    await settle();
    notification.answer();
    expect(await Promise.all(answers)).to.deep.equal(Array(20).fill(true));
    expect(await other).to.equal(true);
    expect(notification.calls).to.equal(2);
    expect(await urls.has(call(21))).to.equal(true);
    expect(notification.calls, 'answered from the cache').to.equal(2);
  });

  it('does not keep an answer read before a webhook changed', async () => {
    const before = urls.has(call(1));
    await settle();
    urls.changed('org_a', 'webhooks');
    notification.webhooks = [completedHook];
    notification.answer();
    expect(await before).to.equal(false);
    const after = urls.has(call(2));
    await settle();
    notification.answer();
    expect(await after).to.equal(true);
    expect(notification.calls).to.equal(2);
  });

  it('answers synchronously (no default URL) for every waiting call when the service is down', async () => {
    const answers = [urls.has(call(1)), urls.has(call(2))];
    await settle();
    notification.fail(new AppError('unavailable', 'notification is unavailable'));
    expect(await Promise.all(answers)).to.deep.equal([false, false]);
    const next = urls.has(call(3));
    await settle();
    expect(notification.calls, 'a failed lookup is not kept').to.equal(2);
    notification.answer();
    await next;
  });
});
