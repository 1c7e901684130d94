import {
  AppError,
  EVENT_TYPE_NAME_PATTERN,
  EventTypes,
  MAX_EVENT_TYPE_NAME,
  WEBHOOK_EVENTS,
} from '@switchyard/shared';
import { BUILT_IN } from './built-in';

/** Dotted lowercase words: "order.shipped", "ticket.refunded", "billing.invoice.voided". */
const EVENT_TYPE_NAME = new RegExp(EVENT_TYPE_NAME_PATTERN);

/** The built-in events a webhook can subscribe to, as listed beside the organization's own. */
export const BUILT_IN_EVENTS = Object.fromEntries(
  Object.entries(BUILT_IN).map(([name, event]) => [name, event.description]),
) as Record<(typeof WEBHOOK_EVENTS)[number], string>;

/** The path segment of the catalog (GET /api/v2/event-types/openapi.json): no type may take it. */
export const CATALOG_NAME = 'openapi.json';

/** Names no organization may take: the built-in webhook events and the bus's own event types. */
const RESERVED = new Set<string>([...WEBHOOK_EVENTS, ...Object.values(EventTypes)]);

/** A name an organization may give its own type (invalid_request, or conflict for a built-in). */
export function checkedEventTypeName(name: string, field = '/name'): string {
  if (!name) throw AppError.invalid('name is required', field, 'required');
  if (name.length > MAX_EVENT_TYPE_NAME || !EVENT_TYPE_NAME.test(name)) {
    throw AppError.invalid(
      `name must be dotted lowercase words (e.g. order.shipped), at most ${MAX_EVENT_TYPE_NAME} characters`,
      field,
      `must match ${EVENT_TYPE_NAME_PATTERN}`,
    );
  }
  if (RESERVED.has(name))
    throw new AppError('conflict', `${name} is a built-in event and cannot be replaced`);
  if (name === CATALOG_NAME)
    throw new AppError('conflict', `${name} is the catalog's path and cannot be a type's name`);
  return name;
}

/** "order.*", "shop.order.*": every domain event type whose name starts with the part before "*". */
export const EVENT_PREFIX = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*\.\*$/;

/** Whether a webhook's events take this event (by name, or by a prefix for domain events). */
export function subscribesTo(events: readonly string[], event: string): boolean {
  if (events.includes(event)) return true;
  if (!event.includes('.')) return false;
  return events.some((e) => e.endsWith('.*') && event.startsWith(e.slice(0, -1)));
}
