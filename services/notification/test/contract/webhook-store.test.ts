import { contractSuite } from '@switchyard/shared/testing';
import { expect } from '../chai';
import { storeBackends, webhookRecord, type StoreWorld } from '../store-fixtures';

/** A field set to undefined and an absent field mean the same to callers. */
function withoutUndefined(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value)) as unknown;
}

contractSuite<StoreWorld>('WebhookStore contract', storeBackends, (world) => {
  it('stores, lists and deletes webhooks with their secrets', async () => {
    const { webhooks } = world().stores;
    const first = webhookRecord({ createdAt: '2026-01-01T00:00:00.000Z' });
    const second = webhookRecord({
      createdAt: '2026-01-02T00:00:00.000Z',
      previousSecret: `whsec_${Buffer.alloc(24, 2).toString('base64')}`,
      previousSecretExpiresAt: '2026-02-01T00:00:00.000Z',
    });
    await webhooks.create(second);
    await webhooks.create(first);
    expect(await webhooks.get('org_a', second.id)).to.deep.equal(second);
    expect((await webhooks.list('org_a')).map((w) => w.id)).to.deep.equal([first.id, second.id]);
    expect(await webhooks.delete('org_a', first.id)).to.equal(true);
    expect(await webhooks.delete('org_a', first.id)).to.equal(false);
    expect(await webhooks.get('org_a', first.id)).to.equal(undefined);
  });

  it('keeps organizations apart', async () => {
    const { webhooks } = world().stores;
    const hook = webhookRecord({ organization: 'org_a' });
    await webhooks.create(hook);
    expect(await webhooks.get('org_b', hook.id)).to.equal(undefined);
    expect(await webhooks.list('org_b')).to.deep.equal([]);
    expect(await webhooks.update('org_b', hook.id, { enabled: false })).to.equal(undefined);
    expect(await webhooks.delete('org_b', hook.id)).to.equal(false);
    expect((await webhooks.get('org_a', hook.id))!.enabled).to.equal(true);
  });

  it('patches fields, rotates secrets and clears a field patched to undefined', async () => {
    const { webhooks } = world().stores;
    const hook = webhookRecord({ failingSince: '2026-01-01T00:00:00.000Z' });
    await webhooks.create(hook);
    const rotated = `whsec_${Buffer.alloc(32, 3).toString('base64')}`;
    const updated = await webhooks.update('org_a', hook.id, {
      secret: rotated,
      previousSecret: hook.secret,
      previousSecretExpiresAt: '2030-01-01T00:00:00.000Z',
      failingSince: undefined,
      url: 'https://hooks.example.com/b',
    });
    expect(withoutUndefined(updated)).to.deep.equal(
      withoutUndefined({
        ...hook,
        secret: rotated,
        previousSecret: hook.secret,
        previousSecretExpiresAt: '2030-01-01T00:00:00.000Z',
        failingSince: undefined,
        url: 'https://hooks.example.com/b',
      }),
    );
    expect((await webhooks.get('org_a', hook.id))!.failingSince).to.equal(undefined);
  });

  it('keeps a payload filter and its domain event subscriptions; a patch to undefined clears it', async () => {
    const { webhooks } = world().stores;
    const filter = [
      { path: 'data.country', in: ['DE', 'AT'] },
      { path: 'data.express', in: [true, null] },
    ];
    const webhook = webhookRecord({ events: ['order.shipped', 'ticket.*'], filter });
    await webhooks.create(webhook);
    const reopened = await world().reopen();
    const read = await reopened.webhooks.get(webhook.organization, webhook.id);
    expect(read!.filter).to.deep.equal(filter);
    expect(read!.events).to.deep.equal(['order.shipped', 'ticket.*']);
    await webhooks.update(webhook.organization, webhook.id, { filter: undefined });
    const cleared = await reopened.webhooks.get(webhook.organization, webhook.id);
    expect(cleared!.filter).to.equal(undefined);
  });

  it('is visible from a second store instance on the same database (restart)', async () => {
    const hook = webhookRecord();
    await world().stores.webhooks.create(hook);
    const reopened = await world().reopen();
    expect(await reopened.webhooks.get('org_a', hook.id)).to.deep.equal(hook);
  });
});
