import type { Middleware } from 'koa';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Logger } from '@switchyard/shared';
import type { GatewayState } from './request-id';

export interface HttpMetrics {
  registry: Registry;
  requests: Counter<'method' | 'route' | 'status'>;
  duration: Histogram<'method' | 'route' | 'status'>;
}

/** A registry per app, so several gateways in one process (tests, embedded mode) do not collide. */
export function createHttpMetrics(): HttpMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const labelNames = ['method', 'route', 'status'] as const;
  return {
    registry,
    requests: new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests by route and status',
      labelNames,
      registers: [registry],
    }),
    duration: new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request duration by route and status',
      labelNames,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    }),
  };
}

/** Counts, times and logs every request by route template (never by raw path: ids would explode labels). */
export function observe(metrics: HttpMetrics, logger: Logger): Middleware<GatewayState> {
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const labels = {
        method: ctx.method,
        route: ctx.state.route ?? 'unmatched',
        status: String(ctx.status),
      };
      metrics.requests.inc(labels);
      metrics.duration.observe(labels, seconds);
      logger.info(
        {
          requestId: ctx.state.requestId,
          method: ctx.method,
          route: labels.route,
          status: ctx.status,
          durationMs: Math.round(seconds * 1000),
          organization: ctx.state.organization,
          keyId: ctx.state.keyId,
        },
        'request',
      );
    }
  };
}
