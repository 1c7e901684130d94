import type { Context, Middleware } from 'koa';
import { AppError, type ErrorDetail, type Logger } from '@switchyard/shared';
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

function render(error: unknown): Rendered | undefined {
  if (error instanceof AppError) {
    const status = error.httpStatus;
    const headers: Record<string, string> = {};
    if (error.retryAfter !== undefined && RETRY_AFTER_STATUSES.has(status))
      headers['Retry-After'] = String(Math.ceil(error.retryAfter));
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
  logger.error({ err: error, requestId: where.requestId, route: where.route }, 'unhandled error');
  return { status: 500, code: 'internal', message: 'internal error', details: [], headers: {} };
}

export function writeError(ctx: Context, problem: Rendered, requestId: string): void {
  ctx.status = problem.status;
  for (const [name, value] of Object.entries(problem.headers)) ctx.set(name, value);
  ctx.body = errorBody(problem, requestId);
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
