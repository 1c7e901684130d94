import type { Middleware } from 'koa';
import { authenticate } from '../auth/authenticate';
import type { KeyLookup } from '../read-models/key-lookup';
import { checkExpiry, checkRoute } from '../auth/scopes';
import type { GatewayState } from './request-id';

export interface ApiKeyCheck {
  keys: KeyLookup;
  /** The OpenAI-compatible routes take `Bearer <key>` too. */
  acceptBearer: boolean;
  /** The route's own path template (":param"), matched by the key's `routes` as well as the path called. */
  routePath: string;
  now: () => number;
}

/** The route's own path with the request's parameters: an alias path is matched as its route too. */
function ownPath(template: string, params: Record<string, string> | undefined): string {
  return template.replace(/:([A-Za-z0-9_]+)/g, (_, name: string) => params?.[name] ?? '');
}

/**
 * Resolves the key to its organization and key id (the key itself goes nowhere else), then
 * applies its expiry and its `routes`. The record stays in the state for the model scope.
 */
export function requireApiKey(check: ApiKeyCheck): Middleware<GatewayState> {
  return async (ctx, next) => {
    const record = await authenticate(
      ctx.get('authorization') || undefined,
      check.keys,
      check.acceptBearer,
    );
    checkExpiry(record, check.now());
    if (record.routes) {
      const params = (ctx as unknown as { params?: Record<string, string> }).params;
      checkRoute(record, [ctx.path, ownPath(check.routePath, params)]);
    }
    ctx.state.organization = record.organization;
    ctx.state.keyId = record.keyId;
    ctx.state.key = record;
    await next();
  };
}
