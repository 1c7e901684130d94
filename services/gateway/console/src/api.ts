/**
 * Every call the console makes goes through the public API of the gateway that served it, with
 * the key (or admin token) the user signed in with, kept in this tab's session storage only.
 */

export type SessionKind = 'organization' | 'admin';

export interface Session {
  kind: SessionKind;
  secret: string;
  /** The organization's id and name (organization sessions). */
  organization?: string;
  organizationName?: string;
}

const STORAGE_KEY = 'switchyard.console.session';

export function loadSession(): Session | null {
  try {
    const stored = sessionStorage.getItem(STORAGE_KEY);
    return stored ? (JSON.parse(stored) as Session) : null;
  } catch {
    return null;
  }
}

export function saveSession(session: Session): void {
  sessionStorage.setItem(STORAGE_KEY, JSON.stringify(session));
}

export function clearSession(): void {
  sessionStorage.removeItem(STORAGE_KEY);
}

/** One problem of a refused request: the JSON pointer of the field, and why. */
export interface ErrorDetail {
  field: string;
  reason: string;
}

/** The contract's error body, `{error: {code, message, details}, request_id}`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: ErrorDetail[] = [],
    readonly requestId = '',
  ) {
    super(message);
  }
}

export function authorizationOf(session: Session): string {
  return session.kind === 'admin' ? `Bearer ${session.secret}` : `X-API-Key ${session.secret}`;
}

/** Called when the API refuses the session's key (revoked, its rotation's grace period over...). */
let onUnauthorized: (refusal: ApiError) => void = () => undefined;
export function whenUnauthorized(handler: (refusal: ApiError) => void): void {
  onUnauthorized = handler;
}

/** What the gateway accepts as an API key (an admin token is anything else). */
export const API_KEY_SHAPE = /^sk_[A-Za-z0-9_-]{16,}$/;

export interface RequestOptions {
  body?: unknown;
  /** A body sent as it is (a CSV or JSONL file) with this media type. */
  raw?: { text: string; contentType: string };
  session?: Session | null;
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

async function errorOf(response: Response): Promise<ApiError> {
  const text = await response.text();
  try {
    const parsed = JSON.parse(text) as {
      error?: { code?: string; message?: string; details?: ApiError['details'] };
      request_id?: string;
    };
    if (parsed.error)
      return new ApiError(
        response.status,
        parsed.error.code ?? 'error',
        parsed.error.message ?? response.statusText,
        parsed.error.details ?? [],
        parsed.request_id ?? response.headers.get('x-request-id') ?? '',
      );
  } catch {
    // not JSON: fall through
  }
  return new ApiError(response.status, 'error', text || response.statusText);
}

/** One call; a streamed answer is returned as the Response itself (see `stream`). */
export async function send(
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<Response> {
  const session = options.session === undefined ? loadSession() : options.session;
  const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
  if (session) headers.authorization = authorizationOf(session);
  let body: string | undefined;
  if (options.raw) {
    headers['content-type'] = options.raw.contentType;
    body = options.raw.text;
  } else if (options.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.body);
  }
  const response = await fetch(path, { method, headers, body, signal: options.signal });
  if (!response.ok) {
    const error = await errorOf(response);
    if (response.status === 401 && options.session === undefined) onUnauthorized(error);
    throw error;
  }
  return response;
}

export async function api<T>(method: string, path: string, options?: RequestOptions): Promise<T> {
  const response = await send(method, path, options);
  if (response.status === 204) return undefined as T;
  return (await response.json()) as T;
}

export const get = <T>(path: string, options?: RequestOptions) => api<T>('GET', path, options);
export const post = <T>(path: string, body: unknown = {}, options?: RequestOptions) =>
  api<T>('POST', path, { ...options, body });

/** The server-sent events of a streamed answer, as parsed `data:` JSON objects. */
export async function* events(
  response: Response,
): AsyncGenerator<{ event?: string; data: unknown }> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event: string | undefined;
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
      }
      if (data.length === 0) continue;
      const text = data.join('\n');
      if (text === '[DONE]') return;
      try {
        yield { event, data: JSON.parse(text) };
      } catch {
        yield { event, data: text };
      }
    }
  }
}

function streamError(data: unknown): Error {
  const error = (data as { error?: { message?: string } }).error;
  return new Error(error?.message ?? 'the stream failed');
}

/**
 * The final answer of a call: its JSON body, or, for a streamed call, each `delta` event's text
 * handed to onDelta as it arrives, then the `done` event's data.
 */
export async function answerOf<T>(
  response: Response,
  streamed: boolean,
  onDelta: (text: string) => void,
): Promise<T> {
  if (!streamed) return (await response.json()) as T;
  for await (const message of events(response)) {
    if (message.event === 'delta') onDelta((message.data as { text: string }).text);
    else if (message.event === 'done') return message.data as T;
    else if (message.event === 'error') throw streamError(message.data);
  }
  throw new Error('the stream ended without its answer');
}

// The API's shapes the console reads (see /openapi.json).

export interface Organization {
  id: string;
  name: string;
  monthlyTokenQuota: number;
  thresholdShares: number[];
  hardQuota: boolean;
  rateLimits: { requestsPerMinute: number; tokensPerMinute: number };
  timeZone?: string;
  createdAt: string;
}

/** A key's scopes, budgets and cache: the gateway's own types (their fields are the API's). */
import type { Budget, KeyScope } from '../../src/store/api-keys/port';
export type { Budget, KeyCache, KeyScope } from '../../src/store/api-keys/port';

export interface ApiKey extends KeyScope {
  keyId: string;
  organization: string;
  name: string;
  createdAt: string;
  revokedAt: string | null;
}

/** A named group of keys whose calls count together against its budget. */
export interface Team {
  teamId: string;
  organization: string;
  name: string;
  budget?: Budget;
  createdAt: string;
}

export interface UsageTotals {
  tokensInput: number;
  tokensOutput: number;
  cost: number;
  calls: number;
}

/** Why the gateway refused a call with 429 before it ran. */
export type RefusalReason = 'quota' | 'request_rate' | 'token_rate' | (string & {});

export interface Refusals {
  /** Calls refused in the period. */
  calls: number;
  byReason: Array<{ reason: RefusalReason; calls: number }>;
  /** Days of the daily series with refusals, per reason. */
  daily: Array<{ date: string; reason: RefusalReason; calls: number }>;
}

export interface UsageReport {
  organization: string;
  period: string;
  periodStart: string;
  periodEnd: string;
  quota: number;
  used: number;
  remaining: number;
  hardQuota: boolean;
  cost: number;
  calls: number;
  thresholdShares: number[];
  byModel: Array<UsageTotals & { model: string }>;
  byEndpoint: Array<UsageTotals & { endpoint: string }>;
  daily: Array<UsageTotals & { date: string }>;
  byKey: Array<UsageTotals & { keyId: string }>;
  byTeam: Array<UsageTotals & { teamId: string }>;
  byEndUser: Array<UsageTotals & { endUser: string }>;
  refused: Refusals;
}

/** The event names a webhook can subscribe to: the same list the gateway validates against. */
export { WEBHOOK_EVENTS } from '../../../../shared/src/events/webhook-events';

export interface Webhook {
  id: string;
  event: string;
  events: string[];
  url: string;
  enabled: boolean;
  createdAt: string;
  updatedAt: string;
  disabledReason: string | null;
  /** Time of the first failed attempt since the last success. */
  failingSince: string | null;
  filter?: Record<string, unknown>;
}

/** A webhook's deliveries created in a window, by state (GET /api/webhooks/{id}/stats). */
export interface WebhookStats {
  since: string;
  until: string;
  pending: number;
  failing: number;
  succeeded: number;
  failed: number;
  cancelled: number;
  successRate: number | null;
}

export interface DeliveryAttempt {
  attemptedAt: string;
  statusCode: number;
  durationMs: number;
  responseBody: string;
  error: string;
}

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';
export type DeliveryState = 'pending' | 'failing' | 'succeeded' | 'failed' | 'cancelled';

export interface Delivery {
  id: string;
  webhookId: string;
  eventId: string;
  event: string;
  status: DeliveryStatus;
  state: DeliveryState;
  cancelledAt: string | null;
  url: string;
  createdAt: string;
  nextAttemptAt: string | null;
  attempts: DeliveryAttempt[];
  /** The body sent on every attempt, exactly as signed. */
  payload: string;
}

export interface ModelInfo {
  id: string;
  provider: string;
  capabilities: string[];
  aliases: string[];
  inputPricePerMillion: number;
  outputPricePerMillion: number;
  contextWindow: number;
  maxOutputTokens: number;
  isDefault: boolean;
  /** Models limited to installed language pairs ("en-es"): they need the source language. */
  translationPairs?: string[];
}
