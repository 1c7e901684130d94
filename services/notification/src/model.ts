import type { TraceCarrier } from '@switchyard/shared';
import type { FilterCondition } from './event-types/filter';
import type { RotatingSecret } from './signing/secrets';

import type { WebhookEvent } from '@switchyard/shared';

export { WEBHOOK_EVENTS, isWebhookEvent, type WebhookEvent } from '@switchyard/shared';

/** An organization's own event type (order.shipped): always dotted, unlike the built-in events. */
export type DomainEventName = `${string}.${string}`;
/** What a webhook subscribes to and a delivery carries: a built-in event or a domain event. */
export type EventName = WebhookEvent | DomainEventName;

/** webhook_id of deliveries to a request's webhookUrl (signed with the organization's secret). */
export { CALLBACK_TARGET } from '@switchyard/shared';

export interface WebhookRecord extends RotatingSecret {
  id: string;
  organization: string;
  events: EventName[];
  /** Only events whose body passes every condition are delivered (none: all). */
  filter?: FilterCondition[];
  /** Deliveries per second at most, across every replica (none: no limit). */
  rateLimit?: number;
  url: string;
  enabled: boolean;
  disabledReason: string;
  createdAt: string;
  updatedAt: string;
  /** Time of the first failed attempt since the last success; cleared by a success. */
  failingSince?: string;
  /** Deliveries in a row that could not be prepared (see unusable); cleared by a success. */
  preparationFailures?: number;
  /**
   * Set when read, never stored: why the stored record cannot serve deliveries (its secret does
   * not decrypt with any key). Its deliveries fail, this endpoint alone, until it is fixed.
   */
  unusable?: string;
}

export interface AttemptRecord {
  attemptedAt: string;
  /** 0 when no HTTP response was received. */
  statusCode: number;
  durationMs: number;
  /** At most 1 KiB of the response body. */
  responseBody: string;
  error: string;
}

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

/**
 * What a delivery's status means to someone watching it: pending splits into not attempted yet
 * and failing (an attempt failed, a retry is scheduled); failed into failed (no retry left) and
 * cancelled (someone stopped its retries).
 */
export const DELIVERY_STATES = ['pending', 'failing', 'succeeded', 'failed', 'cancelled'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

export function deliveryState(
  record: Pick<DeliveryRecord, 'status' | 'attempts' | 'cancelledAt'>,
): DeliveryState {
  if (record.status === 'pending') return record.attempts.length > 0 ? 'failing' : 'pending';
  if (record.status === 'failed' && record.cancelledAt) return 'cancelled';
  return record.status;
}

export interface DeliveryRecord {
  /** Derived from (organization, event id, target): one delivery per event and target (a replay has its own). */
  id: string;
  organization: string;
  /** A webhook id, or CALLBACK_TARGET for a request's webhookUrl. */
  webhookId: string;
  /** The webhook-id header: the message id, stable across retries and replays. */
  messageId: string;
  eventId: string;
  event: EventName;
  /** When the event happened (for the event-to-first-attempt metric). */
  occurredAt: string;
  url: string;
  /** The serialized body; these exact bytes are signed and sent on every attempt. */
  payload: string;
  status: DeliveryStatus;
  attempts: AttemptRecord[];
  createdAt: string;
  /** ISO time of the next attempt while pending (while the first attempt is still out: its lease's end). */
  nextAttemptAt?: string;
  /** Id of the delivery this one replays. */
  replayOf?: string;
  /**
   * Deliveries of one webhook for events of one key go one after the other (the next once this
   * one succeeded or finally failed): the lane they wait in, "<webhook id> <key>".
   */
  lane?: string;
  /** When someone cancelled its retries (status failed from then on). */
  cancelledAt?: string;
  /** W3C trace context of the work that created it (the consumed event): every attempt is a span of that trace. */
  trace?: TraceCarrier;
}

export interface OrgSigningSecret extends RotatingSecret {
  organization: string;
  createdAt: string;
}
