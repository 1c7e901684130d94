import { AppError, type CallContext } from '@switchyard/shared';
import type { Delivery, Webhook } from '@switchyard/shared/proto/notification/v1';
import {
  deliveryState,
  isWebhookEvent,
  WEBHOOK_EVENTS,
  type DeliveryRecord,
  type EventName,
  type WebhookRecord,
} from '../model';
import { filterView } from '../event-types/filter';
import { EVENT_PREFIX } from '../event-types/names';
import type { DeliveryStore } from '../store/deliveries/port';
import type { EventTypeStore } from '../store/event-types/port';
import type { UrlPolicy } from '@switchyard/shared';
import type { WebhookStore } from '../store/webhooks/port';

export const DEFAULT_OVERLAP_SECONDS = 24 * 3600;
const MAX_OVERLAP_SECONDS = 30 * 24 * 3600;

/** Every RPC acts for the calling organization only. */
export function organizationOf(context: CallContext): string {
  if (!context.organization) throw new AppError('unauthorized', 'the call carries no organization');
  return context.organization;
}

/**
 * The events a webhook subscribes to: built-in events, the organization's own types (existing,
 * not deleted) and prefixes of them ("order.*": every type under order., later ones too).
 */
export async function validateEvents(
  eventTypes: EventTypeStore,
  organization: string,
  events: string[],
  field = '/events',
): Promise<EventName[]> {
  if (events.length === 0)
    throw AppError.invalid('events must list at least one event', field, 'must not be empty');
  for (const [index, event] of events.entries()) {
    if (isWebhookEvent(event) || EVENT_PREFIX.test(event)) continue;
    const type = event.includes('.') ? await eventTypes.get(organization, event) : undefined;
    if (!type || type.deletedAt) {
      throw AppError.invalid(
        `unknown event "${event}"; use one of ${WEBHOOK_EVENTS.join(', ')}, an event type of the organization or a prefix such as "order.*"`,
        `${field}/${index}`,
        'unknown event',
      );
    }
  }
  return [...new Set(events)] as EventName[];
}

/** Refuses a URL the delivery policy would not send to (invalid_request on /url with the reason). */
export async function checkedUrl(policy: UrlPolicy, url: string, field = '/url'): Promise<string> {
  if (!url) throw AppError.invalid('url is required', field, 'required');
  const check = await policy.check(url);
  if (!check.allowed)
    throw AppError.invalid(`url is not allowed: ${check.reason}`, field, check.reason);
  return check.url.href;
}

/** A page's cursor: the last item's sort fields, as one opaque string. */
export function encodeCursor(fields: [string, string]): string {
  return Buffer.from(JSON.stringify(fields)).toString('base64url');
}

/** A list's page size as asked (0: the default); invalid_request on /limit outside 1..max. */
export function pageLimit(requested: number, bounds: { default: number; max: number }): number {
  if (requested < 0 || requested > bounds.max)
    throw AppError.invalid(`limit must be between 1 and ${bounds.max}`, '/limit', 'out of range');
  return requested || bounds.default;
}

/**
 * One page of a list read with limit + 1 items (the extra one says whether a next page exists),
 * and the cursor after its last item ('' on the last page).
 */
export function pageOf<T>(
  found: T[],
  limit: number,
  cursorFields: (last: T) => [string, string],
): { page: T[]; next: string } {
  const page = found.slice(0, limit);
  const last = page[page.length - 1];
  return { page, next: found.length > limit && last ? encodeCursor(cursorFields(last)) : '' };
}

/** The fields of a cursor encodeCursor made; invalid_request at field for anything else. */
export function decodeCursor(value: string, field: string): [string, string] | undefined {
  if (!value) return undefined;
  try {
    const fields = JSON.parse(Buffer.from(value, 'base64url').toString()) as unknown;
    if (Array.isArray(fields) && fields.length === 2 && fields.every((f) => typeof f === 'string'))
      return fields as [string, string];
  } catch {
    // Reported below.
  }
  throw AppError.invalid(
    `${field.slice(1)} is not a cursor this API returned`,
    field,
    'invalid cursor',
  );
}

/** An optional time bound as the log stores times (UTC ISO), or undefined when empty. */
export function isoTime(value: string, field: string): string | undefined {
  if (!value) return undefined;
  const time = Date.parse(value);
  if (Number.isNaN(time))
    throw AppError.invalid(`${field.slice(1)} must be an ISO 8601 time`, field, 'not a time');
  return new Date(time).toISOString();
}

export function overlapSeconds(value: number | undefined, field = '/overlap_seconds'): number {
  if (value === undefined) return DEFAULT_OVERLAP_SECONDS;
  if (!Number.isInteger(value) || value < 0 || value > MAX_OVERLAP_SECONDS) {
    throw AppError.invalid(
      `overlap_seconds must be between 0 and ${MAX_OVERLAP_SECONDS}`,
      field,
      'out of range',
    );
  }
  return value;
}

export async function findWebhook(
  store: WebhookStore,
  organization: string,
  id: string,
): Promise<WebhookRecord> {
  const webhook = id ? await store.get(organization, id) : undefined;
  if (!webhook) throw AppError.notFound(`webhook ${id} not found`);
  return webhook;
}

/** A delivery of the organization, of the webhook when one is named (not_found otherwise). */
export async function findDelivery(
  store: DeliveryStore,
  organization: string,
  webhookId: string,
  deliveryId: string,
): Promise<DeliveryRecord> {
  const found = deliveryId ? await store.get(organization, deliveryId) : undefined;
  if (!found || (webhookId && webhookId !== found.webhookId))
    throw AppError.notFound(`delivery ${deliveryId} not found`);
  return found;
}

export function toWebhook(record: WebhookRecord): Webhook {
  return {
    id: record.id,
    events: record.events,
    url: record.url,
    enabled: record.enabled,
    created_at: record.createdAt,
    updated_at: record.updatedAt,
    disabled_reason: record.disabledReason,
    filter_json: record.filter ? JSON.stringify(filterView(record.filter)) : '',
    failing_since: record.failingSince ?? '',
    rate_limit: record.rateLimit ?? 0,
  };
}

/** Most deliveries per second a webhook may be limited to (a higher rate is no limit in practice). */
export const MAX_RATE_LIMIT = 10_000;

/** A webhook's rate limit as given (0: none), checked; undefined for none. */
export function checkedRateLimit(rateLimit: number): number | undefined {
  if (rateLimit === 0) return undefined;
  if (!Number.isInteger(rateLimit) || rateLimit < 0 || rateLimit > MAX_RATE_LIMIT) {
    throw AppError.invalid(
      `rateLimit is deliveries per second, 1 to ${MAX_RATE_LIMIT}`,
      '/rateLimit',
      'out of range',
    );
  }
  return rateLimit;
}

export function toDelivery(record: DeliveryRecord): Delivery {
  return {
    id: record.id,
    webhook_id: record.webhookId,
    event_id: record.eventId,
    event: record.event,
    status: record.status,
    attempts: record.attempts.map((a) => ({
      attempted_at: a.attemptedAt,
      status_code: a.statusCode,
      duration_ms: a.durationMs,
      response_body: a.responseBody,
      error: a.error,
    })),
    created_at: record.createdAt,
    next_attempt_at: record.status === 'pending' ? (record.nextAttemptAt ?? '') : '',
    url: record.url,
    payload: record.payload,
    state: deliveryState(record),
    cancelled_at: record.cancelledAt ?? '',
  };
}
