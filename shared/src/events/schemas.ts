import type { JSONSchemaType } from 'ajv';
import type { EventType } from './topics';
import { EVENT_TYPE_NAME_PATTERN, MAX_EVENT_TYPE_NAME } from './webhook-events';

/** Payloads (the envelope's data) per event type. These are the documented wire contracts. */

/**
 * What a metered call was, by name: services record usage under these, never under the gateway's
 * URLs (the gateway shows each route as the path users call, docs/architecture.md#usage).
 */
export const UsageRoutes = {
  contentGenerate: 'content.generate',
  contentTransform: 'content.transform',
  /** Knowledge documents and questions turned into vectors for the assistants' retrieval. */
  knowledgeEmbeddings: 'knowledge.embeddings',
  /** A reply of an assistant; the event's `agent` says which. */
  assistantChat: 'assistant.chat',
  openAiChatCompletions: 'openai.chat_completions',
  openAiEmbeddings: 'openai.embeddings',
  /** Recommendations served: calls counted, no tokens. */
  recommend: 'recommendation.recommend',
  /** Requests turned into vectors by the gateway's semantic response cache. */
  cacheEmbeddings: 'cache.embeddings',
} as const;

export type UsageRoute = (typeof UsageRoutes)[keyof typeof UsageRoutes];

export interface UsageRecorded {
  requestId: string;
  keyId: string;
  /** The logical route; absent only in events recorded before routes (they carry `endpoint`). */
  route?: UsageRoute;
  /** assistant.chat: the agent that replied. */
  agent?: string;
  /** The calling key's team, when it has one. */
  teamId?: string;
  /** The end user the call was made for, when the caller named one. */
  endUser?: string;
  /** Events recorded before routes: the gateway path the call was billed to. Never written now. */
  endpoint?: string;
  model: string;
  tokensInput: number;
  tokensOutput: number;
  cost: number;
  /** succeeded, or failed after tokens were spent upstream. */
  outcome: 'succeeded' | 'failed';
}

export interface UsageThresholdReached {
  period: string;
  usage: number;
  threshold: number;
  share: number;
  quota: number;
}

/** A hard quota refused a call (the gateway's counter is at the quota): notification fires the 100% threshold. */
export interface UsageQuotaExhausted {
  period: string;
  quota: number;
  /** The gateway's counter when it refused (reservations of calls in flight included). */
  used: number;
}

/**
 * A budget's counter reached a share of its limit (reservations of calls in flight included):
 * once per budget, limit, share and period. Published by the gateway, delivered as budget_threshold.
 */
export interface BudgetThresholdReached {
  level: 'key' | 'team' | 'endUser';
  /** The key (key and end-user budgets). */
  keyId?: string;
  teamId?: string;
  endUser?: string;
  limit: 'tokens' | 'cost';
  /** The limit: tokens, or cost in the model prices' currency. */
  budget: number;
  period: 'day' | 'week' | 'month';
  share: number;
  /** share × budget. */
  threshold: number;
  /** The counter right after the call that reached the threshold. */
  used: number;
  /** When the period ends and the budget starts again. */
  resetAt: string;
}

/**
 * Why the gateway refused a call with 429 before it ran: the organization's hard quota, a key's
 * requests or tokens per minute, or a key's (or its end user's) budget.
 */
export const RefusalReasons = ['quota', 'request_rate', 'token_rate', 'budget'] as const;
export type RefusalReason = (typeof RefusalReasons)[number];

/**
 * Calls a gateway replica refused for one reason on one UTC day, since the last count it
 * published (refusals are counted per organization, day and reason, not one event per call).
 */
export interface UsageRefused {
  /** YYYY-MM-DD (UTC). */
  day: string;
  reason: RefusalReason;
  count: number;
}

export interface InvoicePaid {
  invoiceId: string;
  amount: number;
  currency: string;
}

export interface InvoiceFailed extends InvoicePaid {
  failureReason: string;
}

export interface DataUpdated {
  dataset: string;
  count: number;
}

/**
 * The id of a request's result event (request.completed / request.failed): derived from the
 * request id, so a re-run publishes the same id and the callback delivery can be found by it.
 */
export function resultEventId(requestId: string): string {
  return `evt_${requestId}_result`;
}

export interface RequestResult {
  requestId: string;
  /** Caller-supplied URL; empty when only registered request_completed webhooks get it. */
  webhookUrl: string;
  result: string;
  model: string;
  usage: { totalTokens: number };
  error?: { code: string; message: string };
}

/** An organization's webhooks changed (registered, updated, deleted, disabled): caches of them are stale. */
export interface WebhooksChanged {
  webhookId: string;
  change: 'created' | 'updated' | 'deleted';
}

/** An organization's policy or keys changed: caches of them are stale. */
export interface OrganizationChanged {
  change: 'policy' | 'keys';
}

/** An organization's agent profiles or knowledge changed on one assistant replica: the others' caches are stale. */
export interface AssistantChanged {
  change: 'profiles' | 'knowledge';
}

/** The support agent handed a conversation to a person. */
export interface SupportEscalated {
  sessionId: string;
  userId: string;
  /** The agent that escalated (support, or an organization's agent built on it). */
  agent: string;
  /** What the user asked, briefly, for the person who takes over. */
  summary: string;
  /** Why: requested_by_user, frustration, billing_dispute, repeated_failure, offer_accepted (absent in older events). */
  reason?: string;
}

/** Recommendation: whose interactions were stored (replicas drop those users' cached profiles). */
export interface InteractionsRecorded {
  userIds: string[];
  count: number;
}

/** Recommendation: catalog items written or deleted (replicas drop them from their item caches). */
export interface CatalogChanged {
  itemIds: string[];
}

/** Recommendation: a new model snapshot of the organization is stored; every replica loads it. */
export interface ModelPublished {
  version: number;
  algorithm: string;
}

/** One of an organization's own events: its type's name and data (checked against the type's schema). */
export interface DomainEvent {
  /** The event type, e.g. order.shipped. */
  type: string;
  /** Events of one key are about one entity (an order); optional. */
  key?: string;
  /**
   * The schema version the data was checked against when published over HTTP; absent (or 0) from
   * a producer on the topic: the notification service checks it against the current version.
   */
  version?: number;
  data: Record<string, unknown>;
}

export interface EventData {
  'usage.recorded': UsageRecorded;
  'usage.threshold_reached': UsageThresholdReached;
  'usage.quota_exhausted': UsageQuotaExhausted;
  'budget.threshold_reached': BudgetThresholdReached;
  'usage.refused': UsageRefused;
  'invoice.paid': InvoicePaid;
  'invoice.failed': InvoiceFailed;
  'data.updated': DataUpdated;
  'request.completed': RequestResult;
  'request.failed': RequestResult;
  'webhooks.changed': WebhooksChanged;
  'organization.changed': OrganizationChanged;
  'assistant.changed': AssistantChanged;
  'support.escalated': SupportEscalated;
  'interactions.recorded': InteractionsRecorded;
  'model.published': ModelPublished;
  'catalog.changed': CatalogChanged;
  'domain.event': DomainEvent;
}

const nonEmpty = { type: 'string', minLength: 1 } as const;
const count = { type: 'integer', minimum: 0 } as const;
const amount = { type: 'number', minimum: 0 } as const;

const usageRecorded: JSONSchemaType<UsageRecorded> = {
  type: 'object',
  additionalProperties: false,
  required: ['requestId', 'keyId', 'model', 'tokensInput', 'tokensOutput', 'cost', 'outcome'],
  // A route, or (events of older versions still in outboxes and topics) an endpoint.
  anyOf: [{ required: ['route'] }, { required: ['endpoint'] }],
  // An assistant's usage is shown under the agent's path: without the agent it could not be.
  if: { properties: { route: { const: UsageRoutes.assistantChat } }, required: ['route'] },
  then: { required: ['agent'] },
  properties: {
    requestId: nonEmpty,
    keyId: { type: 'string' },
    route: { type: 'string', enum: Object.values(UsageRoutes), nullable: true },
    agent: { ...nonEmpty, nullable: true },
    teamId: { ...nonEmpty, nullable: true },
    endUser: { ...nonEmpty, nullable: true },
    endpoint: { ...nonEmpty, nullable: true },
    model: nonEmpty,
    tokensInput: count,
    tokensOutput: count,
    cost: amount,
    outcome: { type: 'string', enum: ['succeeded', 'failed'] },
  },
};

const usageThresholdReached: JSONSchemaType<UsageThresholdReached> = {
  type: 'object',
  additionalProperties: false,
  required: ['period', 'usage', 'threshold', 'share', 'quota'],
  properties: {
    period: { type: 'string', pattern: '^\\d{4}-\\d{2}$' },
    usage: count,
    threshold: count,
    share: { type: 'number', exclusiveMinimum: 0 },
    quota: count,
  },
};

const usageQuotaExhausted: JSONSchemaType<UsageQuotaExhausted> = {
  type: 'object',
  additionalProperties: false,
  required: ['period', 'quota', 'used'],
  properties: {
    period: { type: 'string', pattern: '^\\d{4}-\\d{2}$' },
    quota: count,
    used: count,
  },
};

const budgetThresholdReached: JSONSchemaType<BudgetThresholdReached> = {
  type: 'object',
  additionalProperties: false,
  required: ['level', 'limit', 'budget', 'period', 'share', 'threshold', 'used', 'resetAt'],
  properties: {
    level: { type: 'string', enum: ['key', 'team', 'endUser'] },
    keyId: { ...nonEmpty, nullable: true },
    teamId: { ...nonEmpty, nullable: true },
    endUser: { ...nonEmpty, nullable: true },
    limit: { type: 'string', enum: ['tokens', 'cost'] },
    budget: amount,
    period: { type: 'string', enum: ['day', 'week', 'month'] },
    share: { type: 'number', exclusiveMinimum: 0 },
    threshold: amount,
    used: amount,
    resetAt: nonEmpty,
  },
};

const usageRefused: JSONSchemaType<UsageRefused> = {
  type: 'object',
  additionalProperties: false,
  required: ['day', 'reason', 'count'],
  properties: {
    day: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' },
    reason: { type: 'string', enum: [...RefusalReasons] },
    count: { type: 'integer', minimum: 1 },
  },
};

const invoiceProps = {
  invoiceId: nonEmpty,
  amount,
  currency: { type: 'string', pattern: '^[A-Z]{3}$' },
} as const;

const invoicePaid: JSONSchemaType<InvoicePaid> = {
  type: 'object',
  additionalProperties: false,
  required: ['invoiceId', 'amount', 'currency'],
  properties: invoiceProps,
};

const invoiceFailed: JSONSchemaType<InvoiceFailed> = {
  type: 'object',
  additionalProperties: false,
  required: ['invoiceId', 'amount', 'currency', 'failureReason'],
  properties: { ...invoiceProps, failureReason: nonEmpty },
};

const dataUpdated: JSONSchemaType<DataUpdated> = {
  type: 'object',
  additionalProperties: false,
  required: ['dataset', 'count'],
  properties: { dataset: nonEmpty, count },
};

const requestResult: JSONSchemaType<RequestResult> = {
  type: 'object',
  additionalProperties: false,
  required: ['requestId', 'webhookUrl', 'result', 'model', 'usage'],
  properties: {
    requestId: nonEmpty,
    webhookUrl: { type: 'string' },
    result: { type: 'string' },
    model: { type: 'string' },
    usage: {
      type: 'object',
      additionalProperties: false,
      required: ['totalTokens'],
      properties: { totalTokens: count },
    },
    error: {
      type: 'object',
      nullable: true,
      additionalProperties: false,
      required: ['code', 'message'],
      properties: { code: { type: 'string' }, message: { type: 'string' } },
    },
  },
};

const webhooksChanged: JSONSchemaType<WebhooksChanged> = {
  type: 'object',
  additionalProperties: false,
  required: ['webhookId', 'change'],
  properties: {
    webhookId: nonEmpty,
    change: { type: 'string', enum: ['created', 'updated', 'deleted'] },
  },
};

const organizationChanged: JSONSchemaType<OrganizationChanged> = {
  type: 'object',
  additionalProperties: false,
  required: ['change'],
  properties: { change: { type: 'string', enum: ['policy', 'keys'] } },
};

const assistantChanged: JSONSchemaType<AssistantChanged> = {
  type: 'object',
  additionalProperties: false,
  required: ['change'],
  properties: { change: { type: 'string', enum: ['profiles', 'knowledge'] } },
};

const supportEscalated: JSONSchemaType<SupportEscalated> = {
  type: 'object',
  additionalProperties: false,
  required: ['sessionId', 'userId', 'agent', 'summary'],
  properties: {
    sessionId: nonEmpty,
    userId: nonEmpty,
    agent: nonEmpty,
    summary: { type: 'string', maxLength: 4000 },
    reason: { type: 'string', maxLength: 100, nullable: true },
  },
};

const interactionsRecorded: JSONSchemaType<InteractionsRecorded> = {
  type: 'object',
  additionalProperties: false,
  required: ['userIds', 'count'],
  properties: { userIds: { type: 'array', items: nonEmpty }, count },
};

const modelPublished: JSONSchemaType<ModelPublished> = {
  type: 'object',
  additionalProperties: false,
  required: ['version', 'algorithm'],
  properties: { version: count, algorithm: nonEmpty },
};

const catalogChanged: JSONSchemaType<CatalogChanged> = {
  type: 'object',
  additionalProperties: false,
  required: ['itemIds'],
  properties: { itemIds: { type: 'array', items: nonEmpty } },
};

const domainEvent = {
  type: 'object',
  additionalProperties: false,
  required: ['type', 'data'],
  properties: {
    type: { type: 'string', pattern: EVENT_TYPE_NAME_PATTERN, maxLength: MAX_EVENT_TYPE_NAME },
    key: { type: 'string', minLength: 1, maxLength: 200, nullable: true },
    version: count,
    data: { type: 'object', required: [] },
  },
} as unknown as JSONSchemaType<DomainEvent>;

export const DATA_SCHEMAS: { [K in EventType]: JSONSchemaType<EventData[K]> } = {
  'usage.recorded': usageRecorded,
  'usage.threshold_reached': usageThresholdReached,
  'usage.quota_exhausted': usageQuotaExhausted,
  'budget.threshold_reached': budgetThresholdReached,
  'usage.refused': usageRefused,
  'invoice.paid': invoicePaid,
  'invoice.failed': invoiceFailed,
  'data.updated': dataUpdated,
  'request.completed': requestResult,
  'request.failed': requestResult,
  'webhooks.changed': webhooksChanged,
  'organization.changed': organizationChanged,
  'assistant.changed': assistantChanged,
  'support.escalated': supportEscalated,
  'interactions.recorded': interactionsRecorded,
  'model.published': modelPublished,
  'catalog.changed': catalogChanged,
  'domain.event': domainEvent,
};
