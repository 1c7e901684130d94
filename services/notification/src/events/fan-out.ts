import type { DeliveryEngine } from '../delivery/engine';
import type { WebhookEvent } from '../model';
import type { WebhookStore } from '../store/webhook-store';

/** Creates one delivery per enabled webhook of the organization registered for the event. */
export class WebhookFanOut {
  constructor(
    private readonly webhooks: WebhookStore,
    private readonly engine: DeliveryEngine,
  ) {}

  async send(organization: string, event: WebhookEvent, eventId: string, occurredAt: string, body: object): Promise<number> {
    const targets = (await this.webhooks.list(organization)).filter((w) => w.enabled && w.events.includes(event));
    if (targets.length === 0) return 0;
    const payload = JSON.stringify(body);
    for (const webhook of targets) {
      await this.engine.enqueue({ organization, webhookId: webhook.id, eventId, event, occurredAt, url: webhook.url, payload });
    }
    return targets.length;
  }
}
