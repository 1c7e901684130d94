import { currentTraceCarrier, type TraceCarrier } from '@switchyard/shared';
import type { DeliverOptions, DeliveryEngine, NewDelivery } from '../delivery/engine';
import { passesFilter } from '../event-types/filter';
import { subscribesTo } from '../event-types/names';
import type { EventName, WebhookRecord } from '../model';
import type { WebhookStore } from '../store/webhooks/port';

/** One event to fan out: its webhooks' body, plus `also` (e.g. a request's callback). */
export interface FanOutEvent {
  organization: string;
  event: EventName;
  eventId: string;
  occurredAt: string;
  body: object;
  also?: NewDelivery[];
  /** The trace the event was handled in, for its deliveries (default: the current one when they are created). */
  trace?: TraceCarrier;
  /** The event's key: its webhooks' deliveries go in order per (webhook, key). */
  key?: string;
}

/** What event handlers send through: one fan-out, or a batch that records its events together. */
export interface EventFanOut {
  send(
    organization: string,
    event: EventName,
    eventId: string,
    occurredAt: string,
    body: object,
    also?: NewDelivery[],
    key?: string,
  ): Promise<unknown>;
}

/** Creates one delivery per enabled webhook of the organization registered for the event. */
export class WebhookFanOut implements EventFanOut {
  constructor(
    private readonly webhooks: WebhookStore,
    private readonly engine: DeliveryEngine,
  ) {}

  /**
   * The deliveries of one event (plus `also`) outside a consumed batch (a threshold, a webhook
   * disabled): logged pending at once and sent from the due queue.
   */
  send(
    organization: string,
    event: EventName,
    eventId: string,
    occurredAt: string,
    body: object,
    also: NewDelivery[] = [],
    key?: string,
  ): Promise<number> {
    return this.sendAll([{ organization, event, eventId, occurredAt, body, also, key }], {
      logFirst: true,
    });
  }

  /**
   * The deliveries of several events, logged together: each organization's webhooks read once
   * and one log write for all of them (a consumed batch costs a few round trips, not a few per
   * event or delivery). Returns how many deliveries were new.
   */
  async sendAll(events: FanOutEvent[], options: DeliverOptions = {}): Promise<number> {
    const webhooks = new Map<string, WebhookRecord[]>();
    for (const organization of new Set(events.map((e) => e.organization))) {
      const enabled = (await this.webhooks.list(organization)).filter((w) => w.enabled);
      // A damaged record whose events cannot be read matches no event: it is disabled, visibly,
      // and every other webhook of the organization is served as usual.
      for (const webhook of enabled.filter((w) => !hasEventList(w)))
        this.engine.disableDamaged(webhook, 'stored record has no valid events list');
      webhooks.set(organization, enabled.filter(hasEventList));
    }
    const inputs = events.flatMap(
      ({ organization, event, eventId, occurredAt, body, also = [], trace, key }) => {
        const targets = webhooks
          .get(organization)!
          .filter((w) => subscribesTo(w.events, event) && passesFilter(w.filter, body));
        const payload = JSON.stringify(body);
        const deliveries: NewDelivery[] = [
          ...also,
          ...targets.map((webhook) => ({
            ...webhookDelivery(webhook, event, eventId, occurredAt, payload),
            ...(key !== undefined && { lane: `${webhook.id} ${key}` }),
          })),
        ];
        return trace ? deliveries.map((delivery) => ({ ...delivery, trace })) : deliveries;
      },
    );
    return inputs.length === 0 ? 0 : this.engine.deliver(inputs, options);
  }

  /** A collector for one consumed batch: handlers send into it, flush() records everything together. */
  batch(): FanOutBatch {
    return new FanOutBatch(this);
  }
}

/**
 * Events of one consumed batch, sent together by flush(). send() only collects (with the
 * sender's trace context, which each delivery keeps), so nothing is durable until flush()
 * resolves (every delivery logged): the consumer commits the batch only after that.
 */
export class FanOutBatch implements EventFanOut {
  private readonly events: FanOutEvent[] = [];

  constructor(private readonly fanOut: WebhookFanOut) {}

  async send(
    organization: string,
    event: EventName,
    eventId: string,
    occurredAt: string,
    body: object,
    also: NewDelivery[] = [],
    key?: string,
  ): Promise<void> {
    // The deliveries are created at flush, outside the handler's trace: they keep it from here.
    const trace = currentTraceCarrier();
    this.events.push({
      organization,
      event,
      eventId,
      occurredAt,
      body,
      also,
      ...(trace && { trace }),
      ...(key !== undefined && { key }),
    });
  }

  flush(options: DeliverOptions = {}): Promise<number> {
    return this.fanOut.sendAll(this.events, options);
  }
}

/** One event's delivery to one webhook (its body serialized once for all its webhooks). */
export function webhookDelivery(
  webhook: WebhookRecord,
  event: EventName,
  eventId: string,
  occurredAt: string,
  payload: string,
): NewDelivery {
  return {
    organization: webhook.organization,
    webhookId: webhook.id,
    eventId,
    event,
    occurredAt,
    url: webhook.url,
    payload,
    webhook,
  };
}

function hasEventList(webhook: WebhookRecord): boolean {
  return Array.isArray(webhook.events) && webhook.events.every((e) => typeof e === 'string');
}
