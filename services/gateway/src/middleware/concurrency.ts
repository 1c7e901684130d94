import type { Middleware } from 'koa';
import { AppError } from '@switchyard/shared';
import type { GatewayState } from './request-id';

function tooManyInFlight(limit: number): AppError {
  return new AppError(
    'rate_limited',
    `this API key already has ${limit} requests in progress on this gateway; retry when one has finished`,
    [{ reason: 'concurrent requests', limit }],
    1,
  );
}

/**
 * Requests in progress per key on this gateway (KEY_MAX_CONCURRENT_REQUESTS), in addition to the
 * per-minute limits: slow calls (large prompts, streams, slow bodies) from one key cannot take all
 * of a replica's capacity. A request counts until its response has finished or its connection closed.
 */
export function keyConcurrencyLimit(limit: number): Middleware<GatewayState> {
  const inFlight = new Map<string, number>();
  const release = (keyId: string) => {
    const left = (inFlight.get(keyId) ?? 1) - 1;
    if (left <= 0) inFlight.delete(keyId);
    else inFlight.set(keyId, left);
  };
  return async (ctx, next) => {
    const keyId = ctx.state.keyId;
    if (!keyId) return next();
    const current = inFlight.get(keyId) ?? 0;
    if (current >= limit) throw tooManyInFlight(limit);
    inFlight.set(keyId, current + 1);
    ctx.res.once('close', () => release(keyId));
    await next();
  };
}
