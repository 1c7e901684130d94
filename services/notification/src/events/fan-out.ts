import { currentTraceCarrier, type TraceCarrier } from '@switchyard/shared';
import type { DeliverOptions, DeliveryEngine, NewDelivery } from '../delivery/engine';
import { passesFilter } from '../event-types/filter';
import { subscribesTo } from '../event-types/names';
import { isWebhookEvent, type EventName, type WebhookRecord } from '../model';
import type { EventRecord, EventStore } from '../store/events/port';
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

/**
 * Creates one delivery per enabled webhook of the organization registered for the event, and
 * records the event (with how many deliveries it made) in the recent events.
 */
export class WebhookFanOut implements EventFanOut {
  constructor(
    private readonly webhooks: WebhookStore,
    private readonly engine: DeliveryEngine,
    private readonly recent: EventStore,
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
   * The deliveries of several events, logged together: each organization's webhooks read once,
   * one log write for all of them and one write of the events to the recent events, beside it
   * (a consumed batch costs a few round trips, not a few per event or delivery). Returns how
   * many deliveries were new. Rejects if either write failed: the batch is handled again, and
   * both are idempotent by event id.
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
    const receivedAt = new Date().toISOString();
    const recorded: EventRecord[] = [];
    const inputs = events.flatMap(
      ({ organization, event, eventId, occurredAt, body, also = [], trace, key }) => {
        const targets = webhooks
          .get(organization)!
          .filter((w) => subscribesTo(w.events, event) && passesFilter(w.filter, body));
        if (isRecorded(event))
          recorded.push({
            ...recordedFields(event, body),
            organization,
            id: eventId,
            type: event,
            ...(key !== undefined && { key }),
            occurredAt,
            receivedAt,
            deliveries: targets.length,
          });
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
    // Both settled before either failure is thrown: a batch handled again while its deliveries
    // were still being logged would send them a second time.
    const [created, written] = await Promise.allSettled([
      inputs.length === 0 ? 0 : this.engine.deliver(inputs, options),
      this.recent.record(recorded),
    ]);
    if (created.status === 'rejected') throw created.reason;
    if (written.status === 'rejected') throw written.reason;
    return created.value;
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

/**
 * Every event fanned out is listed in the recent events but request_completed: a request's
 * result is read at GET /api/v2/requests/{id} and counted in the usage log, and its body (a
 * model's whole answer) would double what is stored per request.
 */
function isRecorded(event: EventName): boolean {
  return event !== 'request_completed';
}

/**
 * What a recent event keeps of its webhook body: a domain event's data and schema version as
 * published (handleDomainEvent's body), a built-in event's own fields (without the event,
 * organization, id and occurredAt every body carries).
 */
function recordedFields(
  event: EventName,
  body: object,
): Pick<EventRecord, 'data' | 'schemaVersion'> {
  const fields = body as Record<string, unknown>;
  if (!isWebhookEvent(event))
    return { data: fields.data, schemaVersion: fields.schemaVersion as number };
  const { event: _event, organization: _organization, id: _id, occurredAt: _at, ...data } = fields;
  return { data };
}

function hasEventList(webhook: WebhookRecord): boolean {
  return Array.isArray(webhook.events) && webhook.events.every((e) => typeof e === 'string');
}
