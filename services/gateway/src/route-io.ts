import type { CallContext } from '@switchyard/shared';
import type { Usage__Output } from '@switchyard/shared/proto/content/v1';
import type { ApiKeyRecord } from './store';
import type { Spent } from './store/response-cache/port';

/*
 * What a route's handler is given and what it answers, without HTTP: the router, metering, the
 * response cache and event streams all work on these.
 */

export interface RouteInput<B, Q> {
  body: B;
  query: Q;
  params: Record<string, string>;
  /** Caller identity and request id for downstream calls (empty organization on public routes). */
  call: CallContext;
  /** The calling key's record (API-key routes): its scopes, budgets and cache. */
  key?: ApiKeyRecord;
  /** Aborts when the HTTP client disconnects before the response finished (streams stop then). */
  signal: AbortSignal;
  /** Route template, for logs. */
  route?: string;
  /** The body as received (routes that pass it on as it is). */
  rawBody?: string;
  /** The request's Cache-Control header (the response cache reads it). */
  cacheControl?: string;
}

export interface RouteResult {
  status: number;
  /** Omitted for 204. */
  body?: unknown;
  /** Defaults to application/json. */
  contentType?: string;
  headers?: Record<string, string>;
  /** Billable routes: tokens the call used (input + output), as the service that did the work reported them. */
  usage?: number;
  /** Streams only: settles when the stream ends, with the tokens used (undefined if it broke off). */
  finished?: Promise<number | undefined>;
  /** Model calls: what the call spent, as the service reported it (a stream's once it ended). */
  spent?: Spent | Promise<Spent | undefined>;
}

export function spentOf(usage: Usage__Output | null | undefined): Spent | undefined {
  return usage
    ? {
        model: usage.model,
        tokensInput: usage.tokens_input,
        tokensOutput: usage.tokens_output,
        cost: usage.cost,
      }
    : undefined;
}
