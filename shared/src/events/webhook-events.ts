/** Event kinds a webhook can subscribe to: the names in bodies sent to registered URLs (contract-decisions.md). */
export const WEBHOOK_EVENTS = [
  'usage_threshold',
  // A key's, team's or end user's budget reached a share of its limit (80 %, 100 %).
  'budget_threshold',
  'invoice_paid',
  'invoice_failed',
  'data_updated',
  'request_completed',
  // The support agent handed a conversation to a person (session, user, summary).
  'support_escalated',
  // Operational: another of the organization's webhooks was disabled (410, or failing too long).
  'webhook_disabled',
] as const;

export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

export function isWebhookEvent(value: string): value is WebhookEvent {
  return (WEBHOOK_EVENTS as readonly string[]).includes(value);
}

/** webhook_id of the deliveries to a request's own webhookUrl (its result callback). */
export const CALLBACK_TARGET = 'callback';

/** Names of organizations' own event types: dotted lowercase words ("order.shipped"). */
export const EVENT_TYPE_NAME_PATTERN = '^[a-z][a-z0-9_]*(\\.[a-z][a-z0-9_]*)+$';
export const MAX_EVENT_TYPE_NAME = 100;
