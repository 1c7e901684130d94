import type { Middleware } from 'koa';
import { authenticate } from '../auth/authenticate';
import type { ApiKeyStore } from '../auth/api-key-store';
import type { GatewayState } from './request-id';

/** Resolves the key to its organization and key id; the key itself goes nowhere else. */
export function requireApiKey(store: ApiKeyStore): Middleware<GatewayState> {
  return async (ctx, next) => {
    const record = await authenticate(ctx.get('authorization') || undefined, store);
    ctx.state.organization = record.organization;
    ctx.state.keyId = record.keyId;
    await next();
  };
}
