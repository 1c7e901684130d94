import { AsyncResource } from 'node:async_hooks';

let checked = false;

/**
 * Replaces Node 24's `AsyncResource.prototype.bind` with one whose bound functions die young, if
 * the installed one is Node 24's. Idempotent.
 *
 * Why: Node 24 gives each bound function a deprecated `asyncResource` accessor (DEP0172) made of
 * two fresh closures. A function with its own accessor pair survives young-generation GC even
 * when nothing references it (300,000 binds: 11 MB promoted per scavenge, none with a data
 * property instead), and everything its closures reach survives with it. Node's HTTP/2 client
 * binds one per request (`request()` -> `reqAsync.bind(requestOnConnect.bind(stream, ...))`), so
 * every finished gRPC call the gateway made was copied and promoted with its stream. Same calls,
 * same `this`, same `length`; `asyncResource` is a plain property (no deprecation warning). Node
 * 25 drops the property; there this does nothing.
 */
export function installYoungAsyncResourceBind(): void {
  if (checked) return;
  checked = true;
  const probe = new AsyncResource('switchyard.probe').bind(() => undefined);
  if (!Object.getOwnPropertyDescriptor(probe, 'asyncResource')?.get) return;
  AsyncResource.prototype.bind = bindInScope as typeof AsyncResource.prototype.bind;
}

function bindInScope<Func extends (...args: never[]) => unknown>(
  this: AsyncResource,
  fn: Func,
  thisArg?: unknown,
): Func & { asyncResource: AsyncResource } {
  if (typeof fn !== 'function') {
    throw Object.assign(
      new TypeError(`The "fn" argument must be of type function. Received ${typeof fn}`),
      { code: 'ERR_INVALID_ARG_TYPE' },
    );
  }
  // eslint-disable-next-line @typescript-eslint/no-this-alias
  const resource = this;
  const run = resource.runInAsyncScope as (
    fn: Func,
    thisArg: unknown,
    ...args: unknown[]
  ) => unknown;
  const bound =
    thisArg === undefined
      ? function (this: unknown, ...args: unknown[]) {
          return run.call(resource, fn, this, ...args);
        }
      : run.bind(resource, fn, thisArg);
  Object.defineProperties(bound, {
    length: { configurable: true, enumerable: false, value: fn.length, writable: false },
    asyncResource: { configurable: true, enumerable: true, value: resource, writable: true },
  });
  return bound as unknown as Func & { asyncResource: AsyncResource };
}
