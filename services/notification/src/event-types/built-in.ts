import type { WebhookEvent } from '../model';

/** What the catalog and the test event know of one built-in event. */
export interface BuiltInEvent {
  description: string;
  /** The fields its body carries besides event, organization, id and occurredAt (JSON Schema 2020-12). */
  fields: Record<string, object>;
  /** Which of the fields are always there. */
  required: string[];
  /** Example values of the fields (contract-decisions.md). */
  example: Record<string, unknown>;
  /** False for request_completed, whose body is the request's result callback (no organization). */
  withOrganization?: boolean;
}

const text = { type: 'string' } as const;
const tokens = { type: 'integer', minimum: 0 } as const;
const invoice = {
  invoiceId: text,
  amount: { type: 'number', minimum: 0, description: "In the currency's major unit" },
  currency: { type: 'string', pattern: '^[A-Z]{3}$', description: 'ISO 4217' },
};

/** The built-in webhook events: the organization's own types are listed beside them. */
export const BUILT_IN: Record<WebhookEvent, BuiltInEvent> = {
  usage_threshold: {
    description: 'Token usage reached a share of the monthly quota',
    fields: { usage: tokens, threshold: tokens },
    required: ['usage', 'threshold'],
    example: { usage: 900_000, threshold: 900_000 },
  },
  budget_threshold: {
    description: "A key's, team's or end user's budget reached a share of its limit",
    fields: {
      level: { enum: ['key', 'team', 'endUser'] },
      keyId: text,
      teamId: text,
      endUser: text,
      limit: { enum: ['tokens', 'cost'] },
      budget: {
        type: 'number',
        minimum: 0,
        description: "Tokens, or cost in the prices' currency",
      },
      period: { enum: ['day', 'week', 'month'] },
      share: { type: 'number', exclusiveMinimum: 0 },
      threshold: { type: 'number', minimum: 0 },
      used: { type: 'number', minimum: 0 },
      resetAt: { type: 'string', format: 'date-time' },
    },
    required: ['level', 'limit', 'budget', 'period', 'share', 'threshold', 'used', 'resetAt'],
    example: {
      level: 'key',
      keyId: 'key_test',
      limit: 'cost',
      budget: 20,
      period: 'month',
      share: 0.8,
      threshold: 16,
      used: 16.2,
      resetAt: '2026-12-01T00:00:00.000Z',
    },
  },
  invoice_paid: {
    description: 'An invoice was paid (billing, invoice.paid)',
    fields: invoice,
    required: ['invoiceId', 'amount', 'currency'],
    example: { invoiceId: 'inv_test', amount: 4900, currency: 'USD' },
  },
  invoice_failed: {
    description: 'An invoice payment failed (billing, invoice.failed)',
    fields: { ...invoice, failureReason: text },
    required: ['invoiceId', 'amount', 'currency', 'failureReason'],
    example: {
      invoiceId: 'inv_test',
      amount: 4900,
      currency: 'USD',
      failureReason: 'card_declined',
    },
  },
  data_updated: {
    description: 'A dataset changed (data platform, data.updated)',
    fields: { dataset: text, count: { type: 'integer', minimum: 0 } },
    required: ['dataset', 'count'],
    example: { dataset: 'test', count: 1 },
  },
  request_completed: {
    description: 'An asynchronous request finished (succeeded or failed)',
    fields: {
      requestId: text,
      result: { type: 'string', description: 'Empty when the request failed' },
      model: text,
      usage: {
        type: 'object',
        required: ['totalTokens'],
        properties: { totalTokens: tokens },
      },
      error: {
        type: 'object',
        description: 'Why the request failed (absent when it succeeded)',
        required: ['code', 'message'],
        properties: { code: text, message: text },
      },
    },
    required: ['requestId', 'result', 'model', 'usage'],
    example: {
      requestId: 'req_test',
      result: 'An example result.',
      model: 'builtin',
      usage: { totalTokens: 42 },
    },
    withOrganization: false,
  },
  support_escalated: {
    description: 'The support agent handed a conversation to a person',
    fields: { sessionId: text, userId: text, agent: text, summary: text, reason: text },
    required: ['sessionId', 'userId', 'agent', 'summary'],
    example: {
      sessionId: 'sess_test',
      userId: 'user_test',
      agent: 'support',
      summary: 'An example escalation.',
    },
  },
  webhook_disabled: {
    description: 'Another of the organization webhooks was disabled',
    fields: { webhookId: text, url: text, reason: text },
    required: ['webhookId', 'url', 'reason'],
    example: {
      webhookId: 'wh_test',
      url: 'https://example.com/hooks',
      reason: 'an example reason',
    },
  },
};
