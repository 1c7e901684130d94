import { AppError } from '@switchyard/shared';
import type { KeyScope } from '../store';

/** `*` matches any characters (slashes too); everything else is literal. Compiled once per pattern. */
const compiled = new Map<string, RegExp>();

function patternOf(route: string): RegExp {
  let pattern = compiled.get(route);
  if (!pattern) {
    const source = route
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*');
    pattern = new RegExp(`^${source}$`);
    if (compiled.size > 10_000) compiled.clear();
    compiled.set(route, pattern);
  }
  return pattern;
}

/** Whether one of the key's `routes` patterns matches one of the paths (the one called, or its route's own). */
export function routeAllowed(routes: readonly string[], paths: readonly string[]): boolean {
  return routes.some((route) => paths.some((path) => patternOf(route).test(path)));
}

/** 401 key_expired once the key's expiresAt has passed. */
export function checkExpiry(scope: KeyScope, now: number): void {
  if (scope.expiresAt === undefined || Date.parse(scope.expiresAt) > now) return;
  throw new AppError('key_expired', `this API key expired at ${scope.expiresAt}`, [
    { reason: 'the key is past its expiresAt', expiresAt: scope.expiresAt },
  ]);
}

/** 403 forbidden when the key's `routes` do not include the path called. */
export function checkRoute(scope: KeyScope, paths: readonly string[]): void {
  if (scope.routes === undefined || routeAllowed(scope.routes, paths)) return;
  throw new AppError('forbidden', `this API key may not call ${paths[0]}`, [
    { reason: 'not among the routes of this API key', routes: [...scope.routes] },
  ]);
}

/** A key limited to some models or routes is an application's key: it does not manage keys or teams. */
export function isRestricted(scope: KeyScope): boolean {
  return scope.models !== undefined || scope.routes !== undefined;
}
