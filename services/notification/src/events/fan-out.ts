import type { DeliveryEngine, NewDelivery } from '../delivery/engine';
import type { WebhookEvent } from '../model';
import type { WebhookStore } from '../store/webhook-store';

/** Creates one delivery per enabled webhook of the organization registered for the event. */
export class WebhookFanOut {
  constructor(
    private readonly webhooks: WebhookStore,
    private readonly engine: DeliveryEngine,
  ) {}

  /** The deliveries of one event, recorded together (plus `also`, e.g. a request's callback) and attempted at once. */
  async send(organization: string, event: WebhookEvent, eventId: string, occurredAt: string, body: object, also: NewDelivery[] = []): Promise<number> {
    const targets = (await this.webhooks.list(organization)).filter((w) => w.enabled && w.events.includes(event));
    if (targets.length === 0 && also.length === 0) return 0;
    const payload = JSON.stringify(body);
    const inputs: NewDelivery[] = targets.map((webhook) => ({ organization, webhookId: webhook.id, eventId, event, occurredAt, url: webhook.url, payload, webhook }));
    return this.engine.deliver([...also, ...inputs]);
  }
}
