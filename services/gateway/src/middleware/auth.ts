import type { Middleware } from 'koa';
import { authenticate } from '../auth/authenticate';
import type { KeyLookup } from '../auth/key-lookup';
import type { GatewayState } from './request-id';

/**
 * Resolves the key to its organization and key id; the key itself goes nowhere else. With
 * acceptBearer (the OpenAI-compatible routes) `Bearer <key>` is taken too.
 */
export function requireApiKey(keys: KeyLookup, acceptBearer = false): Middleware<GatewayState> {
  return async (ctx, next) => {
    const record = await authenticate(ctx.get('authorization') || undefined, keys, acceptBearer);
    ctx.state.organization = record.organization;
    ctx.state.keyId = record.keyId;
    await next();
  };
}
