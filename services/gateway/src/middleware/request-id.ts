import type { Middleware } from 'koa';
import { newId } from '@switchyard/shared';
import type { ApiKeyRecord } from '../store/api-keys/port';

export interface GatewayState {
  requestId: string;
  /** Route template for metrics and logs ("unmatched" when no route matched). */
  route?: string;
  organization?: string;
  keyId?: string;
  /** The calling key's record: its scopes. */
  key?: ApiKeyRecord;
  /** The request carried the admin token. */
  admin?: boolean;
}

/**
 * Every request gets a fresh req_ id, set before anything can fail. A client-sent X-Request-Id is
 * not reused: the id also names asynchronous requests, so it must be unique.
 */
export function requestId(): Middleware<GatewayState> {
  return async (ctx, next) => {
    ctx.state.requestId = newId('req');
    ctx.set('X-Request-Id', ctx.state.requestId);
    await next();
  };
}
