import type { DependencyName, ErrorCode, Logger, UrlPolicy } from '@switchyard/shared';
import type { Registry } from 'prom-client';
import type { GatewayClients } from '../clients';
import type { RouteInput, RouteResult } from '../route-io';
import type { JsonSchema } from '../schemas/common';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** A request body read as UTF-8 text (within the body limit) and turned into the route's body type. */
export interface TextBody<B> {
  description: string;
  toBody(text: string): B;
}

export interface ResponseSpec {
  description: string;
  schema?: JsonSchema;
  contentType?: string;
  /** Documents a text/event-stream alternative (requests with stream: true). */
  eventStream?: string;
}
import type { DefaultResultUrls } from '../read-models/default-result-url';
import type { Accounts } from '../accounts/accounts';
import type { Teams } from '../accounts/teams';
import type { CacheSpec, ResponseCache } from '../cache/response-cache';
import type { BillingSpec, Metering } from '../metering/metering';
import type { OrganizationDirectory } from '../read-models/organization-directory';

/** What route handlers may use. */
export interface RouteDeps {
  clients: GatewayClients;
  logger: Logger;
  /** grpc.health.v1 status of one downstream ("SERVING", "NOT_SERVING", "UNREACHABLE"...). */
  checkHealth(address: string, service: string): Promise<string>;
  metrics: Registry;
  defaultResultUrls: DefaultResultUrls;
  /** The OpenAPI document, generated once from the route table. */
  openapi(): unknown;
  /** Organizations and keys (admin routes). */
  accounts: Accounts;
  teams: Teams;
  metering: Metering;
  /** Answers kept for equal requests (keys or requests that ask for it). */
  responseCache: ResponseCache;
  /** Organizations' policies (time zone...), cached and fed by the change feed. */
  organizations: Pick<OrganizationDirectory, 'policyOf'>;
  /** Where a webhookUrl may point (checked once at acceptance; notification checks again at send). */
  urlPolicy: UrlPolicy;
  /** The shared dependencies (redis, mongodb, kafka) this process uses, up or down. */
  dependencies(): Partial<Record<DependencyName, 'up' | 'down'>>;
}

/** true: an API key (X-API-Key); 'admin': the admin token; false: open. */
export type RouteAuth = boolean | 'admin';

/**
 * One entry of the route table: the router, validation and the OpenAPI document all read it,
 * so what is served and what is documented cannot drift apart.
 */
export interface RouteSpec<B = unknown, Q = Record<string, never>> {
  method: HttpMethod;
  /** Koa-style path (":param"). */
  path: string;
  /** Extra paths with the same behaviour (published examples). */
  aliases?: string[];
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  auth: RouteAuth;
  /** Billable routes reserve quota and token rate before the call and settle after it. */
  billing?: BillingSpec<B>;
  /** Model calls whose answers the response cache may keep and replay (a hit is not metered). */
  cache?: CacheSpec<B, RouteDeps>;
  /**
   * Accepts Idempotency-Key: POST routes that create work. Off by default (GET and DELETE are
   * idempotent already). Not for routes whose answer holds a credential that must not sit in the
   * shared state (issued API keys).
   */
  idempotent?: boolean;
  /**
   * Top-level answer fields that hold a credential shown once (a webhook's secret): an idempotent
   * answer is stored, and replayed, without them.
   */
  credentialFields?: string[];
  requestSchema?: JsonSchema;
  /**
   * How many JSON values the body may hold (default DEFAULT_MAX_BODY_VALUES, 5,000): counted on the
   * text before it is parsed, 413 beyond. Batch routes declare their own.
   */
  maxBodyValues?: number;
  /**
   * Bodies taken as text besides JSON, by media type (a file sent as it is, e.g. text/csv): each
   * becomes the JSON body that requestSchema validates. The OpenAPI document lists them.
   */
  textBodies?: Record<string, TextBody<B>>;
  querySchema?: JsonSchema;
  /** Success responses by status. */
  responses: Record<number, ResponseSpec>;
  /** Error codes beyond the generic ones (auth, validation, internal, unavailable, timeout). */
  errors?: ErrorCode[];
  /** Checks that depend on path parameters, after schema validation. */
  validate?(input: RouteInput<B, Q>): void;
  handle(input: RouteInput<B, Q>, deps: RouteDeps): Promise<RouteResult>;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyRoute = RouteSpec<any, any>;

export function json(status: number, body: unknown): RouteResult {
  return { status, body };
}
