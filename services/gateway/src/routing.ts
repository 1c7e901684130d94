import type { ServerResponse } from 'node:http';
import Router from '@koa/router';
import type { Middleware } from 'koa';
import { AppError, type CallContext } from '@switchyard/shared';
import type { KeyLookup } from './read-models/key-lookup';
import { requireAdminToken } from './middleware/admin';
import { requireApiKey } from './middleware/auth';
import { jsonBody, type BodyLimits, type BodyState, type TextBodyReader } from './middleware/body';
import { HttpProblem, isOpenAiPath } from './middleware/errors';
import type { IdempotencyGuard } from './idempotency/guard';
import type { DueRequestHit, DueState } from './metering/metering';
import { idempotencyKeyOf } from './idempotency/header';
import type { GatewayState } from './middleware/request-id';
import {
  batchFieldsOf,
  precompileBodySchema,
  precompileQuerySchema,
  validateBodyInSlices,
  validateQuery,
} from './schemas/validator';
import type { RouteInput, RouteResult } from './route-io';
import type { AnyRoute, RouteDeps } from './routes/types';

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

export function routePaths(route: AnyRoute): string[] {
  return [route.path, ...(route.aliases ?? [])];
}

function markRoute(path: string): Middleware<GatewayState> {
  return async (ctx, next) => {
    ctx.state.route = path;
    await next();
  };
}

/** Aborts when the response closes unfinished: the client disconnected. */
function clientGone(res: ServerResponse): AbortSignal {
  const controller = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  return controller.signal;
}

/**
 * Who calls, for which request; on an idempotent route also the client's Idempotency-Key, so the
 * service doing the work can answer a retry from its kept answer instead of running it again.
 */
function callOf(route: AnyRoute, ctx: Parameters<Middleware<BodyState>>[0]): CallContext {
  const call: CallContext = {
    organization: ctx.state.organization ?? '',
    keyId: ctx.state.keyId ?? '',
    requestId: ctx.state.requestId,
  };
  const key = ctx.state.key;
  if (key?.models) call.models = key.models;
  if (key?.teamId) call.teamId = key.teamId;
  const idempotencyKey = route.idempotent ? idempotencyKeyOf(ctx.req.headers) : undefined;
  return idempotencyKey === undefined ? call : { ...call, idempotencyKey };
}

function invoke(route: AnyRoute, deps: RouteDeps): Middleware<BodyState> {
  return async (ctx) => {
    const input: RouteInput<unknown, unknown> = {
      body: route.requestSchema
        ? await validateBodyInSlices(route.requestSchema, ctx.state.body, ctx.state.bodyValues)
        : (ctx.state.body ?? {}),
      query: route.querySchema ? validateQuery(route.querySchema, { ...ctx.query }) : {},
      params: (ctx as unknown as { params: Record<string, string> }).params,
      call: callOf(route, ctx),
      key: ctx.state.key,
      signal: clientGone(ctx.res),
      route: ctx.state.route,
      rawBody: ctx.state.rawBody,
      cacheControl: ctx.get('Cache-Control') || undefined,
    };
    route.validate?.(input);
    const endUser = route.billing?.endUser?.(input.body);
    if (endUser) input.call.endUser = endUser;
    const result = await handleMetered(route, input, deps, (ctx.state as DueState).requestHit);
    ctx.status = result.status;
    for (const [name, value] of Object.entries(result.headers ?? {})) ctx.set(name, value);
    if (result.body !== undefined) {
      ctx.body = result.body;
      ctx.type = result.contentType ?? 'application/json';
    }
  };
}

/**
 * The response cache first (when the key or request asks for it): a hit is the answer. Then a
 * billable route reserves before the call, gives back on failure, settles after it. The
 * settlement does not hold up the answer: the estimate stays counted until it lands (a later call
 * from this replica queues behind it on the same connection), and the durable record of the
 * call's usage is the service's usage event, already published.
 */
async function handleMetered(
  route: AnyRoute,
  input: RouteInput<unknown, unknown>,
  deps: RouteDeps,
  requestHit: DueRequestHit | undefined,
): Promise<RouteResult> {
  const asked = route.cache && deps.responseCache.asked(input);
  // Counted before the cache is read: a hit is not admitted as a call.
  if (asked) await requestHit?.alone();
  const cached = asked ? await deps.responseCache.open(route.cache!, input, deps) : undefined;
  // A hit makes no model call: nothing to reserve, settle or bill.
  if (cached?.hit) return cached.hit;
  const result = await handleBilled(route, input, deps, requestHit);
  return cached ? cached.keep(result) : result;
}

async function handleBilled(
  route: AnyRoute,
  input: RouteInput<unknown, unknown>,
  deps: RouteDeps,
  requestHit: DueRequestHit | undefined,
): Promise<RouteResult> {
  if (!route.billing) {
    await requestHit?.alone();
    return route.handle(input, deps);
  }
  const metered = await deps.metering.begin(
    route.billing,
    input.body,
    input.call,
    input.key,
    requestHit,
  );
  let result: RouteResult;
  try {
    result = await route.handle(input, deps);
  } catch (error) {
    await metered.failed();
    throw error;
  }
  void metered
    .finished(result)
    .catch((error: unknown) =>
      deps.logger.warn({ err: error, requestId: input.call.requestId }, 'quota settlement failed'),
    );
  return result;
}

export interface RouterAuth {
  keys: KeyLookup;
  adminToken?: string;
  /** The clock keys expire by. */
  now: () => number;
}

export interface RouterOptions {
  bodyLimitBytes: number;
  /** Requests in progress per key (one instance for all routes: it holds the counts). */
  keyConcurrency: Middleware;
  /** Serves Idempotency-Key on the routes flagged `idempotent`. */
  idempotency: IdempotencyGuard;
}

function authenticate(route: AnyRoute, auth: RouterAuth, options: RouterOptions): Middleware[] {
  if (route.auth === 'admin') return [requireAdminToken(auth.adminToken) as Middleware];
  if (route.auth)
    return [
      requireApiKey({
        keys: auth.keys,
        acceptBearer: isOpenAiPath(route.path),
        routePath: route.path,
        now: auth.now,
      }) as Middleware,
      options.keyConcurrency,
    ];
  return [];
}

function textReaders(route: AnyRoute): Record<string, TextBodyReader> {
  return Object.fromEntries(
    Object.entries(route.textBodies ?? {}).map(([type, body]) => [
      type,
      (text: string) => body.toBody(text),
    ]),
  );
}

const passThrough: Middleware = (_ctx, next) => next();

/** A batch route (one with its own value limit) has its large bodies' single top-level array parsed in slices. */
function bodyLimitsOf(route: AnyRoute, options: RouterOptions): BodyLimits {
  const batchFields =
    route.maxBodyValues !== undefined && route.requestSchema
      ? batchFieldsOf(route.requestSchema)
      : [];
  return {
    bytes: options.bodyLimitBytes,
    values: route.maxBodyValues,
    batchField: batchFields.length === 1 ? batchFields[0] : undefined,
  };
}

/**
 * After authentication: the per-key request limit, then the body. On an idempotent route the guard
 * orders them itself, so that a replayed answer is not rate-limited (nor, being answered before
 * `invoke`, quota-charged) a second time.
 */
function limitAndBody(route: AnyRoute, deps: RouteDeps, options: RouterOptions): Middleware[] {
  // A billed route's request hit goes with the call's admission (one round trip).
  const limit =
    route.auth !== true
      ? passThrough
      : ((route.billing
          ? deps.metering.deferredRequestLimit()
          : deps.metering.requestLimit()) as Middleware);
  const body = BODY_METHODS.has(route.method)
    ? (jsonBody(bodyLimitsOf(route, options), textReaders(route)) as Middleware)
    : passThrough;
  if (route.idempotent)
    return [options.idempotency.middleware(limit, body, route.credentialFields)];
  return [limit, body];
}

/** Per route: mark it for metrics, authenticate, rate-limit, read the body (Idempotency-Key), validate, call the handler. */
export function buildRouter(
  routes: AnyRoute[],
  deps: RouteDeps,
  auth: RouterAuth,
  options: RouterOptions,
): Router {
  const router = new Router();
  for (const route of routes) {
    if (route.requestSchema) precompileBodySchema(route.requestSchema);
    if (route.querySchema) precompileQuerySchema(route.querySchema);
    for (const path of routePaths(route)) {
      const stack: Middleware[] = [
        markRoute(path) as Middleware,
        ...authenticate(route, auth, options),
        ...limitAndBody(route, deps, options),
        invoke(route, deps) as Middleware,
      ];
      router.register(path, [route.method], stack);
    }
  }
  return router;
}

/** The stack as one middleware: each calls the next, the last one the caller's next. */
function chain(stack: Middleware[]): Middleware {
  return stack.reduceRight<Middleware>(
    (after, middleware) => (ctx, next) => middleware(ctx, () => after(ctx, next) as Promise<void>),
    (_ctx, next) => next(),
  );
}

/**
 * The routes without parameters, by method and exact path: a request for one runs its stack
 * without the router's test of every route's pattern and the chain it builds per request. Only a
 * path the router would give to that route alone is taken; anything else (parameters, another
 * case, a trailing slash) goes on to the router.
 */
export function exactRoutes(router: Router): Middleware<GatewayState> {
  const stacks = new Map<string, Middleware>();
  for (const layer of router.stack) {
    const path = layer.path;
    if (typeof path !== 'string' || layer.paramNames.length > 0) continue;
    for (const method of layer.methods) {
      const matched = router.match(path, method).pathAndMethod;
      if (matched.length === 1 && matched[0] === layer)
        stacks.set(`${method} ${path}`, chain(layer.stack as Middleware[]));
    }
  }
  return (ctx, next) => {
    const stack = stacks.get(`${ctx.method} ${ctx.path}`);
    if (!stack) return next();
    (ctx as unknown as { params: Record<string, string> }).params = {};
    return stack(ctx, next) as Promise<void>;
  };
}

/** Runs when no route matched path and method: 404 for an unknown path, 405 (with Allow) for a wrong method. */
export function unmatched(router: Router): Middleware<GatewayState> {
  return async (ctx) => {
    const allowed = [
      ...new Set(router.match(ctx.path, ctx.method).path.flatMap((layer) => layer.methods)),
    ];
    if (allowed.length === 0)
      throw AppError.notFound(
        isOpenAiPath(ctx.path)
          ? `Invalid URL (${ctx.method} ${ctx.path})`
          : `no route for ${ctx.method} ${ctx.path}`,
      );
    const allow = allowed.join(', ');
    if (ctx.method === 'OPTIONS') {
      ctx.set('Allow', allow);
      ctx.status = 204;
      return;
    }
    throw new HttpProblem(
      405,
      'method_not_allowed',
      `${ctx.method} is not allowed on ${ctx.path}; allowed: ${allow}`,
      { Allow: allow },
    );
  };
}
