import { httpStatusOf, type ErrorCode } from '@switchyard/shared';
import { CACHE_HEADER } from './cache/response-cache';
import { AUTH_SCHEME_DESCRIPTION } from './auth/authenticate';
import {
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENCY_KEY_PATTERN,
  REPLAYED_HEADER,
} from './idempotency/header';
import { ADMIN_SCHEME_DESCRIPTION } from './middleware/admin';
import { DEFAULT_MAX_BODY_VALUES } from './middleware/body';
import { isOpenAiPath } from './middleware/errors';
import { OpenAiErrorResponse } from './schemas/openai';
import { routePaths } from './routing';
import { ErrorResponse, type JsonSchema } from './schemas/common';
import type { AnyRoute, ResponseSpec } from './routes/types';

const SECURITY_SCHEME = 'apiKey';
/** The OpenAI-compatible routes also take the key as `Authorization: Bearer <key>`. */
const BEARER_KEY_SCHEME = 'bearerApiKey';
/** The admin token, as a bearer token or in X-Admin-Token (either satisfies). */
const ADMIN_BEARER_SCHEME = 'adminToken';
const ADMIN_HEADER_SCHEME = 'adminTokenHeader';

function securityOf(route: AnyRoute): unknown[] {
  if (route.auth === 'admin') return [{ [ADMIN_BEARER_SCHEME]: [] }, { [ADMIN_HEADER_SCHEME]: [] }];
  if (route.auth && isOpenAiPath(route.path))
    return [{ [BEARER_KEY_SCHEME]: [] }, { [SECURITY_SCHEME]: [] }];
  return route.auth ? [{ [SECURITY_SCHEME]: [] }] : [];
}

/** Titled schemas become components (named by title); others stay inline. */
class SchemaComponents {
  readonly schemas: Record<string, JsonSchema> = {};

  ref(schema: JsonSchema): JsonSchema {
    const title = schema.title;
    if (typeof title !== 'string') return schema;
    const existing = this.schemas[title];
    if (existing && existing !== schema)
      throw new Error(`two different schemas are titled ${title}`);
    this.schemas[title] = schema;
    return { $ref: `#/components/schemas/${title}` };
  }
}

/** Koa ":param" -> OpenAPI "{param}". */
function openApiPath(path: string): { path: string; params: string[] } {
  const params: string[] = [];
  const converted = path.replace(/:([A-Za-z0-9_]+)/g, (_m, name: string) => {
    params.push(name);
    return `{${name}}`;
  });
  return { path: converted, params };
}

/** Error statuses a route can answer with, each with the codes that produce it. */
function errorCodes(route: AnyRoute): ErrorCode[] {
  const codes: ErrorCode[] = ['internal'];
  const takesInput = route.requestSchema || route.querySchema || route.path.includes(':');
  if (takesInput) codes.push('invalid_request');
  if (route.requestSchema) codes.push('payload_too_large', 'unsupported_media_type');
  if (route.auth === 'admin') codes.push('forbidden');
  else if (route.auth)
    codes.push(
      'unauthorized',
      'key_expired',
      'forbidden',
      'rate_limited',
      'unavailable',
      'timeout',
    );
  if (route.idempotent) codes.push('invalid_request', 'conflict');
  return [...new Set([...codes, ...(route.errors ?? [])])];
}

/** Paths under /v1/ answer OpenAI's error body (OpenAiError<status>), the others the contract's. */
function errorResponses(route: AnyRoute, used: Set<string>): Record<string, unknown> {
  const prefix = isOpenAiPath(route.path) ? 'OpenAiError' : 'Error';
  // Any request whose line or headers are over the server's limit gets 431 (headers_too_large).
  const statuses = [431, ...errorCodes(route).map(httpStatusOf)];
  const byStatus: Record<string, unknown> = {};
  for (const status of statuses) {
    used.add(`${prefix}${status}`);
    byStatus[String(status)] = { $ref: `#/components/responses/${prefix}${status}` };
  }
  return byStatus;
}

const EVENT_STREAM_SCHEMA = { type: 'string', description: 'Server-Sent Events' };

const IDEMPOTENCY_PARAMETER = 'IdempotencyKey';

/** The reusable header parameter of every idempotent operation. */
const IDEMPOTENCY_KEY_PARAMETER = {
  name: IDEMPOTENCY_KEY_HEADER,
  in: 'header',
  required: false,
  description:
    'Makes a retry safe: the first request with this key (per organization, for IDEMPOTENCY_TTL_SECONDS, default 24 h) is processed once; ' +
    'a retry with the same method, path and body gets the stored answer (same status and body, X-Request-Id of the original, ' +
    '`Idempotent-Replayed: true`) without calling a model or charging the rate limit or quota again. ' +
    'The same key with another request, or while the first is still running (Retry-After: 1), is 409 conflict. ' +
    '5xx and 429 answers are not stored (retry with the same key). Not allowed with stream: true (400).',
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: IDEMPOTENCY_KEY_PATTERN.source },
};

/** Sent on the answers of idempotent operations that carried the key. */
const IDEMPOTENCY_RESPONSE_HEADERS = {
  [IDEMPOTENCY_KEY_HEADER]: {
    description: 'The Idempotency-Key of the request, echoed',
    schema: { type: 'string' },
  },
  [REPLAYED_HEADER]: {
    description: '"true" when this is the stored answer of an earlier request with the key',
    schema: { type: 'string', enum: ['true'] },
  },
};

const CACHE_CONTROL_PARAMETER = 'CacheControl';

/** The request header of the operations whose answers the response cache may keep. */
const CACHE_CONTROL_REQUEST_PARAMETER = {
  name: 'Cache-Control',
  in: 'header',
  required: false,
  description:
    "The response cache (see the key's `cache` setting): `max-age=N` answers an equal request of the organization from an answer at most N seconds old (no model call, not billed) and stores this call's answer for N seconds; " +
    '`no-store` skips the cache (neither read nor written), also on a key that caches; `no-cache` does not read it but stores the fresh answer. Equal: the same model (after aliases), messages or prompt and every parameter but `user` and `stream`.',
  schema: { type: 'string', examples: ['max-age=3600', 'no-store'] },
};

/** Sent on the answers of operations the cache was in play for. */
const CACHE_RESPONSE_HEADERS = {
  [CACHE_HEADER]: {
    description:
      '`hit`: answered from the response cache (no model call, not billed; `Age` says how old the answer is); `miss`: answered by the model (and stored). Absent when the cache was not in play',
    schema: { type: 'string', enum: ['hit', 'miss'] },
  },
};

function successResponse(
  route: AnyRoute,
  spec: ResponseSpec,
  components: SchemaComponents,
): unknown {
  const headerSpecs = {
    ...(route.idempotent ? IDEMPOTENCY_RESPONSE_HEADERS : {}),
    ...(route.cache ? CACHE_RESPONSE_HEADERS : {}),
  };
  const headers = Object.keys(headerSpecs).length > 0 ? { headers: headerSpecs } : {};
  if (!spec.schema && !spec.contentType) return { description: spec.description, ...headers };
  const contentType = spec.contentType ?? 'application/json';
  const content: Record<string, unknown> = {
    [contentType]: { schema: spec.schema ? components.ref(spec.schema) : { type: 'string' } },
  };
  if (spec.eventStream)
    content['text/event-stream'] = {
      schema: { ...EVENT_STREAM_SCHEMA, description: spec.eventStream },
    };
  return { description: spec.description, ...headers, content };
}

function parameters(route: AnyRoute, pathParams: string[]): unknown[] {
  const inPath = pathParams.map((name) => ({
    name,
    in: 'path',
    required: true,
    schema: { type: 'string', minLength: 1 },
  }));
  const properties = (route.querySchema?.properties ?? {}) as Record<string, JsonSchema>;
  const inQuery = Object.entries(properties).map(([name, schema]) => ({
    name,
    in: 'query',
    required: false,
    schema,
  }));
  const inHeader = [
    ...(route.idempotent ? [{ $ref: `#/components/parameters/${IDEMPOTENCY_PARAMETER}` }] : []),
    ...(route.cache ? [{ $ref: `#/components/parameters/${CACHE_CONTROL_PARAMETER}` }] : []),
  ];
  return [...inPath, ...inQuery, ...inHeader];
}

/** The route's text bodies (files sent as they are), by media type. */
function textContent(route: AnyRoute): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(route.textBodies ?? {}).map(([type, body]) => [
      type,
      { schema: { type: 'string', description: body.description } },
    ]),
  );
}

/** The value limit of a JSON body (the byte limit is the deployment's BODY_LIMIT_BYTES). */
function bodyLimitOf(route: AnyRoute): string {
  const values = route.maxBodyValues ?? DEFAULT_MAX_BODY_VALUES;
  return `A JSON body holds at most ${values} values (objects, arrays, strings, numbers, literals; keys not counted): more is 413 payload_too_large, before the body is parsed.`;
}

function operation(
  route: AnyRoute,
  path: string,
  components: SchemaComponents,
  usedErrors: Set<string>,
): Record<string, unknown> {
  const alias = path !== route.path;
  const { params } = openApiPath(path);
  const responses: Record<string, unknown> = {};
  for (const [status, spec] of Object.entries(route.responses))
    responses[status] = successResponse(route, spec, components);
  return {
    operationId: alias
      ? `${route.operationId}Alias${routePaths(route).indexOf(path)}`
      : route.operationId,
    summary: alias ? `${route.summary} (alias of ${route.path})` : route.summary,
    ...(route.description ? { description: route.description } : {}),
    tags: [route.tag],
    security: securityOf(route),
    ...(params.length || route.querySchema || route.idempotent
      ? { parameters: parameters(route, params) }
      : {}),
    ...(route.requestSchema
      ? {
          requestBody: {
            required: true,
            description: bodyLimitOf(route),
            content: {
              'application/json': { schema: components.ref(route.requestSchema) },
              ...textContent(route),
            },
          },
        }
      : {}),
    responses: { ...responses, ...errorResponses(route, usedErrors) },
  };
}

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'invalid_request: invalid JSON, missing, unknown, mistyped or out-of-range field (details name each)',
  401: 'unauthorized: missing, malformed, unknown or revoked key; key_expired: the key is past its expiresAt',
  403: "forbidden: a missing or wrong admin token, or a path not among the key's routes; model_not_allowed: a model not among the key's models",
  404: 'not_found: unknown path, agent or resource',
  409: 'conflict: e.g. an Idempotency-Key reused with a different request, or whose first request is still running (Retry-After)',
  413: 'payload_too_large: body over the configured size limit, or with more JSON values than the operation takes (see its request body)',
  415: 'unsupported_media_type: body is not application/json (or one of the text types the operation lists)',
  422: 'unsupported: the model cannot serve this request',
  431: 'headers_too_large: the request line or headers are over the server limit (16 KB)',
  429: "rate_limited (per-key requests or tokens per minute; RateLimit-* headers), quota_exceeded (monthly tokens; Retry-After = seconds until the UTC month ends), budget_exceeded (a key's or end user's budget; Retry-After and details[0].resetAt say when it resets)",
  500: 'internal',
  502: 'upstream_error: the model provider failed',
  503: 'unavailable: an internal service is down',
  504: 'timeout: a deadline passed',
};

/** Sent with every answer of an API-key route (the per-key request limit). */
const RATE_LIMIT_HEADERS = {
  'RateLimit-Limit': {
    description: 'Requests per minute allowed for this key',
    schema: { type: 'integer' },
  },
  'RateLimit-Remaining': {
    description: 'Requests left in the current window',
    schema: { type: 'integer' },
  },
  'RateLimit-Reset': {
    description: 'Seconds until capacity comes back',
    schema: { type: 'integer' },
  },
};

/** The error responses the operations use: Error<status> with the contract's body, OpenAiError<status> with OpenAI's. */
function errorComponents(used: Set<string>): Record<string, unknown> {
  const responses: Record<string, unknown> = {};
  for (const [status, description] of Object.entries(ERROR_DESCRIPTIONS)) {
    const retry = status === '409' || status === '429' || status === '503';
    const response = {
      description,
      headers: {
        'X-Request-Id': { schema: { type: 'string' } },
        ...(retry
          ? {
              'Retry-After': {
                description: 'Seconds to wait, when known',
                schema: { type: 'integer' },
              },
            }
          : {}),
        ...(status === '429' ? RATE_LIMIT_HEADERS : {}),
      },
    };
    for (const [prefix, schema] of [
      ['Error', 'ErrorResponse'],
      ['OpenAiError', 'OpenAiErrorResponse'],
    ]) {
      if (!used.has(`${prefix}${status}`)) continue;
      responses[`${prefix}${status}`] = {
        ...response,
        content: { 'application/json': { schema: { $ref: `#/components/schemas/${schema}` } } },
      };
    }
  }
  return responses;
}

const TAG_DESCRIPTIONS: Record<string, string> = {
  content:
    'Text generation (synchronous, streamed or asynchronous) and summarize, reformat, translate',
  assistants: 'Chat, support and onboarding assistants, and agents of your own, with sessions',
  knowledge:
    "Knowledge collections and documents the assistants answer from (an organization's own data)",
  agents: 'Agent profiles: instructions, tools and knowledge of an assistant answering at its name',
  recommendations: 'Recommendations for a user, and model training',
  catalog: 'Catalog items and user interactions the recommendations learn from',
  webhooks: 'Webhook registration, signing secrets and deliveries (Standard Webhooks)',
  events: "The organization's own event types (JSON Schema 2020-12) beside the built-in events",
  requests: 'Status of asynchronous requests',
  usage: "The organization's token usage, quota and cost",
  organization: "The caller's own organization and its API keys (the organization's key)",
  teams: "Teams: named groups of the organization's keys, each with its budget",
  admin: 'Organizations, API keys and teams (the admin token)',
  models: 'The model registry',
  openai:
    "OpenAI's API: chat completions, embeddings and models, for OpenAI's SDKs with only the base URL and key changed",
  system: 'Health, readiness, metrics and this document',
};

/** OpenAPI 3.1 generated from the route table and the same schemas ajv validates with. */
export function buildOpenApi(routes: AnyRoute[]): Record<string, unknown> {
  const components = new SchemaComponents();
  components.ref(ErrorResponse);
  components.ref(OpenAiErrorResponse);
  const paths: Record<string, Record<string, unknown>> = {};
  const usedErrors = new Set<string>();
  for (const route of routes) {
    for (const path of routePaths(route)) {
      const key = openApiPath(path).path;
      paths[key] = {
        ...paths[key],
        [route.method.toLowerCase()]: operation(route, path, components, usedErrors),
      };
    }
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Switchyard API',
      version: '2.0.0',
      description:
        'Content generation and transformation, assistants, recommendations and signed webhooks. ' +
        'Every response carries X-Request-Id; request_id / requestId in bodies equals it. ' +
        "Paths under /v1/ are OpenAI's API (bodies, stream chunks and errors as OpenAI's).",
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    // Relative: the document is served by the gateway it describes.
    servers: [{ url: '/', description: 'The gateway serving this document' }],
    tags: [...new Set(routes.map((r) => r.tag))].map((name) => ({
      name,
      description: TAG_DESCRIPTIONS[name] ?? name,
    })),
    paths,
    components: {
      securitySchemes: {
        [SECURITY_SCHEME]: {
          type: 'apiKey',
          in: 'header',
          name: 'Authorization',
          description: AUTH_SCHEME_DESCRIPTION,
        },
        [BEARER_KEY_SCHEME]: {
          type: 'http',
          scheme: 'bearer',
          description:
            'Paths under /v1/ (OpenAI-compatible): `Authorization: Bearer <key>`, the Switchyard key as OpenAI clients send theirs',
        },
        [ADMIN_BEARER_SCHEME]: {
          type: 'http',
          scheme: 'bearer',
          description: ADMIN_SCHEME_DESCRIPTION,
        },
        [ADMIN_HEADER_SCHEME]: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Admin-Token',
          description: ADMIN_SCHEME_DESCRIPTION,
        },
      },
      schemas: components.schemas,
      parameters: {
        [IDEMPOTENCY_PARAMETER]: IDEMPOTENCY_KEY_PARAMETER,
        [CACHE_CONTROL_PARAMETER]: CACHE_CONTROL_REQUEST_PARAMETER,
      },
      responses: errorComponents(usedErrors),
    },
  };
}
