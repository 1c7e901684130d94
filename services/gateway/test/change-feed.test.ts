import { expect } from 'chai';
import { createEvent, InMemoryEventBus } from '@switchyard/shared';
import { silentLogger, waitFor } from '@switchyard/shared/testing';
import { ChangeFeed } from '../src/events/change-feed';
import { orgWithKey } from './accounts-helpers';
import { sampleWebhook } from './doubles';
import { startHarness, type Harness } from './harness';

/**
 * Two replicas whose caches live long (60 s keys, policies and default result URLs) and follow
 * the changes on one bus: what one replica or notification changes, the other sees at once
 * without asking again on every call.
 */
describe('gateway caches follow the change feed across replicas', function () {
  this.timeout(20_000);
  let bus: InMemoryEventBus;
  let feeds: ChangeFeed[];
  let a: Harness;
  let b: Harness;

  beforeEach(async () => {
    bus = new InMemoryEventBus({ logger: silentLogger() });
    feeds = [new ChangeFeed(bus, silentLogger()), new ChangeFeed(bus, silentLogger())];
    await Promise.all(feeds.map((feed) => feed.start()));
    a = await startHarness({ changes: feeds[0], keyCacheTtlMs: 60_000 });
    b = await startHarness({
      changes: feeds[1],
      keyCacheTtlMs: 60_000,
      doubles: a.doubles,
      apiKeys: a.apiKeys,
      organizations: a.organizations,
      sharedState: a.sharedState,
    });
  });

  afterEach(async () => {
    await b.stop();
    await a.stop();
    await Promise.all(feeds.map((feed) => feed.stop()));
    await bus.close();
  });

  const generate = (h: Harness, key?: string) =>
    h.send('POST', '/api/v2/ai/content/generate', { key, body: { prompt: 'x' } });

  it('asks notification for the default result URL once, and again only after webhooks.changed', async () => {
    a.doubles.notification.on('ListWebhooks', async () => ({ webhooks: [] }));
    for (let i = 0; i < 3; i += 1) expect((await generate(b)).status).to.equal(200);
    expect(a.doubles.notification.called('ListWebhooks')).to.equal(1);

    a.doubles.notification.on('ListWebhooks', async () => ({
      webhooks: [{ ...sampleWebhook, events: ['request_completed'] }],
    }));
    await bus.publish(
      createEvent('webhooks.changed', {
        source: 'notification',
        organization: 'org_test',
        data: { webhookId: sampleWebhook.id, change: 'created' },
      }),
    );
    await waitFor(async () => (await generate(b)).status === 202, 5_000);
    expect(a.doubles.notification.called('ListWebhooks')).to.equal(2);
  });

  it('applies a policy changed on one replica to the calls of the other at once', async () => {
    const { key } = await orgWithKey(a, {
      id: 'org-limits',
      rateLimits: { requestsPerMinute: 1000 },
    });
    expect((await generate(b, key)).status).to.equal(200); // b caches the policy
    const patched = await a.admin('PATCH', '/api/v2/admin/organizations/org-limits', {
      rateLimits: { requestsPerMinute: 1 },
    });
    expect(patched.status, JSON.stringify(patched.body)).to.equal(200);
    await waitFor(async () => (await generate(b, key)).status === 429, 5_000);
  });

  it('refuses a key revoked on one replica on the other, though its key cache lives 60 s', async () => {
    const { key, keyId } = await orgWithKey(a, { id: 'org-keys' });
    expect((await generate(b, key)).status).to.equal(200); // b caches the key
    expect((await a.admin('POST', `/api/v2/admin/keys/${keyId}/revoke`, {})).status).to.equal(200);
    await waitFor(async () => (await generate(b, key)).status === 401, 5_000);
  });
});
