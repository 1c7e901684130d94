/**
 * Kafka topics, one per event family. Every message is keyed by organization so that one
 * organization's events stay in order.
 */
export const Topics = {
  usage: 'switchyard.usage.v1',
  billing: 'switchyard.billing.v1',
  data: 'switchyard.data.v1',
  results: 'switchyard.results.v1',
  /** Changes that replicas' caches follow (webhooks registered or disabled, organization policy or keys). */
  changes: 'switchyard.changes.v1',
  /** Recommendation replicas among themselves: interactions recorded, model snapshots published. */
  recommendation: 'switchyard.recommendation.v1',
  /** Organizations' own domain events (order.shipped...), published over HTTP or by producers. */
  domain: 'switchyard.domain.v1',
  deadLetter: 'switchyard.deadletter.v1',
} as const;

export type Topic = (typeof Topics)[keyof typeof Topics];

export const EventTypes = {
  usageRecorded: 'usage.recorded',
  usageThresholdReached: 'usage.threshold_reached',
  usageQuotaExhausted: 'usage.quota_exhausted',
  budgetThresholdReached: 'budget.threshold_reached',
  usageRefused: 'usage.refused',
  invoicePaid: 'invoice.paid',
  invoiceFailed: 'invoice.failed',
  dataUpdated: 'data.updated',
  requestCompleted: 'request.completed',
  requestFailed: 'request.failed',
  webhooksChanged: 'webhooks.changed',
  organizationChanged: 'organization.changed',
  assistantChanged: 'assistant.changed',
  supportEscalated: 'support.escalated',
  interactionsRecorded: 'interactions.recorded',
  modelPublished: 'model.published',
  catalogChanged: 'catalog.changed',
  domainEvent: 'domain.event',
} as const;

export type EventType = (typeof EventTypes)[keyof typeof EventTypes];

/** Which topic carries which event type. */
export const TOPIC_OF: Record<EventType, Topic> = {
  'usage.recorded': Topics.usage,
  'usage.threshold_reached': Topics.usage,
  'usage.quota_exhausted': Topics.usage,
  'budget.threshold_reached': Topics.usage,
  'usage.refused': Topics.usage,
  'invoice.paid': Topics.billing,
  'invoice.failed': Topics.billing,
  'data.updated': Topics.data,
  'request.completed': Topics.results,
  'request.failed': Topics.results,
  'webhooks.changed': Topics.changes,
  'organization.changed': Topics.changes,
  'assistant.changed': Topics.changes,
  // A conversation's outcome for the organization, like a request's result.
  'support.escalated': Topics.results,
  'interactions.recorded': Topics.recommendation,
  'model.published': Topics.recommendation,
  'catalog.changed': Topics.recommendation,
  'domain.event': Topics.domain,
};
