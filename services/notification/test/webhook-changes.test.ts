import { silentLogger } from '@switchyard/shared/testing';
import type { AnyEvent } from '@switchyard/shared';
import { ChangePublishingWebhookStore, InMemoryWebhookStore } from '../src/store';
import type { WebhookRecord } from '../src/model';
import { expect } from './chai';

const NOW = '2026-11-24T00:00:00.000Z';

function webhook(id: string): WebhookRecord {
  return {
    id,
    organization: 'org_a',
    url: 'https://hooks.example.com/x',
    events: ['request_completed'],
    enabled: true,
    disabledReason: '',
    createdAt: NOW,
    updatedAt: NOW,
    secret: 'whsec_x',
  };
}

describe('webhook changes reach the bus (gateway caches follow them)', () => {
  it('publishes webhooks.changed on create, enable/disable, events and delete, not on failure bookkeeping', async () => {
    const published: AnyEvent[] = [];
    const store = new ChangePublishingWebhookStore(
      new InMemoryWebhookStore(),
      { publish: async (event) => void published.push(event) },
      silentLogger(),
    );
    await store.create(webhook('wh_1'));
    await store.update('org_a', 'wh_1', { failingSince: NOW, updatedAt: NOW });
    await store.update('org_a', 'wh_1', {
      enabled: false,
      disabledReason: 'endpoint answered 410 Gone',
      updatedAt: NOW,
    });
    await store.update('org_a', 'wh_1', { events: ['usage_threshold'], updatedAt: NOW });
    await store.update('org_a', 'wh_missing', { enabled: true, updatedAt: NOW });
    await store.delete('org_a', 'wh_1');
    await store.delete('org_a', 'wh_1');
    expect(published.map((e) => [e.type, e.organization, e.data])).to.deep.equal([
      ['webhooks.changed', 'org_a', { webhookId: 'wh_1', change: 'created' }],
      ['webhooks.changed', 'org_a', { webhookId: 'wh_1', change: 'updated' }],
      ['webhooks.changed', 'org_a', { webhookId: 'wh_1', change: 'updated' }],
      ['webhooks.changed', 'org_a', { webhookId: 'wh_1', change: 'deleted' }],
    ]);
  });

  it('keeps the write when the bus refuses the event', async () => {
    const inner = new InMemoryWebhookStore();
    const store = new ChangePublishingWebhookStore(
      inner,
      { publish: async () => Promise.reject(new Error('bus down')) },
      silentLogger(),
    );
    await store.create(webhook('wh_2'));
    expect(await inner.get('org_a', 'wh_2')).to.include({ id: 'wh_2' });
  });
});
