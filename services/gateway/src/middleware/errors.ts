import type { Context, Middleware } from 'koa';
import {
  AppError,
  OUTAGE_RETRY_AFTER_SECONDS,
  outageAppError,
  type ErrorDetail,
  type Logger,
} from '@switchyard/shared';
import type { GatewayState } from './request-id';

/**
 * An HTTP-level refusal with no AppError code of its own (405). Its code is "method_not_allowed",
 * documented in the OpenAPI error schema.
 */
export class HttpProblem extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
    readonly details: ErrorDetail[] = [],
  ) {
    super(message);
  }
}

export interface Rendered {
  status: number;
  code: string;
  message: string;
  details: ErrorDetail[];
  headers: Record<string, string>;
}

/** 409 too: an Idempotency-Key still in flight can be retried shortly. */
const RETRY_AFTER_STATUSES = new Set([409, 429, 503]);

/** The OpenAI-compatible surface: every path under it answers errors in OpenAI's shape. */
export const OPENAI_PATH_PREFIX = '/v1/';

export function isOpenAiPath(path: string): boolean {
  return path.startsWith(OPENAI_PATH_PREFIX);
}

function render(error: unknown): Rendered | undefined {
  if (error instanceof AppError) {
    const status = error.httpStatus;
    const headers: Record<string, string> = {};
    // One rule for 503: the error's own Retry-After, else the outage default, whether a
    // dependency is down or a service is restarting (its callers cannot tell them apart).
    const retryAfter =
      error.retryAfter ?? (status === 503 ? OUTAGE_RETRY_AFTER_SECONDS : undefined);
    if (retryAfter !== undefined && RETRY_AFTER_STATUSES.has(status))
      headers['Retry-After'] = String(Math.ceil(retryAfter));
    if (status === 401) headers['WWW-Authenticate'] = 'X-API-Key';
    return { status, code: error.code, message: error.message, details: error.details, headers };
  }
  if (error instanceof HttpProblem) {
    return {
      status: error.status,
      code: error.code,
      message: error.message,
      details: error.details,
      headers: error.headers,
    };
  }
  return undefined;
}

/** An error body lists at most this many details: a huge invalid body must not get a huger answer. */
export const MAX_ERROR_DETAILS = 20;

/** The contract's error body: the first MAX_ERROR_DETAILS details, and how many more there were. */
export function errorBody(problem: Rendered, requestId: string) {
  const details = problem.details.slice(0, MAX_ERROR_DETAILS);
  const omitted = problem.details.length - details.length;
  const error = {
    code: problem.code,
    message: problem.message,
    details,
    ...(omitted > 0 ? { details_omitted: omitted } : {}),
  };
  return { error, request_id: requestId };
}

/** What a failure answers; anything unexpected is logged and becomes a bare internal error. */
export function problemOf(
  error: unknown,
  logger: Logger,
  where: { requestId: string; route?: string },
): Rendered {
  const problem = render(error);
  if (problem) return problem;
  // The gateway's own MongoDB (organizations, keys, tallies) unreachable: 503, as the services answer.
  const outage = outageAppError(error);
  if (outage) {
    logger.warn({ err: error, requestId: where.requestId }, 'dependency unavailable');
    return render(outage)!;
  }
  logger.error({ err: error, requestId: where.requestId, route: where.route }, 'unhandled error');
  return { status: 500, code: 'internal', message: 'internal error', details: [], headers: {} };
}

/** OpenAI's error `type` by status, as its API and SDKs use them. */
function openAiType(problem: Rendered): string {
  if (problem.code === 'quota_exceeded' || problem.code === 'budget_exceeded')
    return 'insufficient_quota';
  if (problem.status === 429) return 'requests';
  return problem.status >= 500 ? 'server_error' : 'invalid_request_error';
}

/** Codes OpenAI's clients know; the contract's own code otherwise. */
function openAiCode(problem: Rendered, param: string | null): string {
  if (problem.code === 'unauthorized') return 'invalid_api_key';
  if (problem.code === 'rate_limited') return 'rate_limit_exceeded';
  if (problem.code === 'quota_exceeded') return 'insufficient_quota';
  if (problem.code === 'not_found' && param === 'model') return 'model_not_found';
  if (problem.details[0]?.reason === 'context_length_exceeded') return 'context_length_exceeded';
  return problem.code;
}

/** A detail's JSON pointer as OpenAI names parameters: "/messages/0/role" -> "messages[0].role". */
function openAiParam(field: unknown): string | null {
  if (typeof field !== 'string' || field === '') return null;
  if (!field.startsWith('/')) return field; // a header, e.g. Idempotency-Key
  return field
    .slice(1)
    .split('/')
    .map((segment, i) => (/^\d+$/.test(segment) ? `[${segment}]` : `${i > 0 ? '.' : ''}${segment}`))
    .join('');
}

/** The error body of OpenAI's API, which its SDKs read: `{"error":{"message","type","param","code"}}`. */
export function openAiErrorBody(problem: Rendered) {
  const param = openAiParam(problem.details[0]?.field);
  return {
    error: {
      message: problem.message,
      type: openAiType(problem),
      param,
      code: openAiCode(problem, param),
    },
  };
}

export function writeError(ctx: Context, problem: Rendered, requestId: string): void {
  ctx.status = problem.status;
  for (const [name, value] of Object.entries(problem.headers)) ctx.set(name, value);
  if (!isOpenAiPath(ctx.path)) {
    ctx.body = errorBody(problem, requestId);
    return;
  }
  if (problem.status === 401) ctx.set('WWW-Authenticate', 'Bearer, X-API-Key');
  ctx.body = openAiErrorBody(problem);
}

/** Every failure becomes the contract's error body; anything unexpected is logged and is a bare 500. */
export function errorHandler(logger: Logger): Middleware<GatewayState> {
  return async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      writeError(ctx, problemOf(error, logger, ctx.state), ctx.state.requestId);
    }
  };
}
