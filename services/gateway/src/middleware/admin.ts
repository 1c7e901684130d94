import { createHash, timingSafeEqual } from 'node:crypto';
import type { Middleware } from 'koa';
import { AppError } from '@switchyard/shared';
import type { GatewayState } from './request-id';

export const ADMIN_SCHEME_DESCRIPTION =
  'Admin API: send `Authorization: Bearer <ADMIN_TOKEN>` or `X-Admin-Token: <ADMIN_TOKEN>`. Without ADMIN_TOKEN configured every admin call is refused.';

const BEARER = /^Bearer ([^\s]+)$/i;

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/** Constant time whatever the lengths: both sides are hashed to 32 bytes first. */
export function sameToken(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}

function presentedToken(authorization: string, adminHeader: string): string | undefined {
  if (adminHeader) return adminHeader;
  return BEARER.exec(authorization)?.[1];
}

/** 403 forbidden unless the request carries the admin token (always, when none is configured). */
export function requireAdminToken(adminToken: string | undefined): Middleware<GatewayState> {
  return async (ctx, next) => {
    const given = presentedToken(ctx.get('authorization'), ctx.get('x-admin-token'));
    const allowed = adminToken !== undefined && given !== undefined && sameToken(given, adminToken);
    if (!allowed) {
      const reason =
        adminToken === undefined
          ? 'the admin API is disabled (ADMIN_TOKEN is not set)'
          : 'missing or wrong admin token';
      throw new AppError('forbidden', reason);
    }
    ctx.state.admin = true;
    await next();
  };
}
