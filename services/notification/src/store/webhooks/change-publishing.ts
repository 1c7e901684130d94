import {
  createEvent,
  type EventPublisher,
  type Logger,
  type WebhooksChanged,
} from '@switchyard/shared';
import type { WebhookRecord } from '../../model';
import type { WebhookPatch, WebhookStore } from './port';

/**
 * A webhook store that tells the bus after every change it made (registration, update, deletion,
 * enabling, disabling and the engine disabling a webhook), so the gateways' caches of "who has which webhooks" follow
 * without asking. A failed publish is logged and the write stands: caches then expire on their own.
 */
export class ChangePublishingWebhookStore implements WebhookStore {
  constructor(
    private readonly store: WebhookStore,
    private readonly bus: EventPublisher,
    private readonly logger: Logger,
  ) {}

  async create(webhook: WebhookRecord): Promise<void> {
    await this.store.create(webhook);
    await this.changed(webhook.organization, webhook.id, 'created');
  }

  get(organization: string, id: string): Promise<WebhookRecord | undefined> {
    return this.store.get(organization, id);
  }

  list(organization: string): Promise<WebhookRecord[]> {
    return this.store.list(organization);
  }

  countDisabled(): Promise<number> {
    return this.store.countDisabled();
  }

  async update(
    organization: string,
    id: string,
    patch: WebhookPatch,
  ): Promise<WebhookRecord | undefined> {
    const updated = await this.store.update(organization, id, patch);
    // Failure bookkeeping (failingSince...) changes nothing a cache holds: only enabled and events do.
    if (updated && (patch.enabled !== undefined || patch.events !== undefined))
      await this.changed(organization, id, 'updated');
    return updated;
  }

  async delete(organization: string, id: string): Promise<boolean> {
    const deleted = await this.store.delete(organization, id);
    if (deleted) await this.changed(organization, id, 'deleted');
    return deleted;
  }

  private async changed(
    organization: string,
    webhookId: string,
    change: WebhooksChanged['change'],
  ): Promise<void> {
    try {
      await this.bus.publish(
        createEvent('webhooks.changed', {
          source: 'notification',
          organization,
          data: { webhookId, change },
        }),
      );
    } catch (error) {
      this.logger.warn(
        { organization, webhookId, error: error instanceof Error ? error.message : String(error) },
        'webhooks.changed not published; gateway caches catch up when they expire',
      );
    }
  }
}
