import type { Middleware } from 'koa';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { contextFromCarrier, tracingEnabled, withSpan } from '@switchyard/shared';
import type { GatewayState } from './request-id';

/** Probes and scrapes: a trace every few seconds per pod that nobody reads. */
const UNTRACED = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * The server span of every HTTP request (except probes and /metrics) (outermost, so the request log line and every gRPC call
 * below are in it). It continues a trace the client sent in traceparent, and is named by route
 * template once routing matched. While tracing is off it only calls next.
 */
export function traceRequests(): Middleware<GatewayState> {
  return (ctx, next) => {
    if (!tracingEnabled() || UNTRACED.has(ctx.path)) return next();
    const attributes = {
      'http.request.method': ctx.method,
      'url.path': ctx.path,
      'url.scheme': ctx.protocol,
    };
    return withSpan(
      ctx.method,
      {
        kind: SpanKind.SERVER,
        service: 'gateway',
        parent: contextFromCarrier(ctx.headers),
        attributes,
      },
      async (span) => {
        try {
          await next();
        } finally {
          const route = ctx.state.route ?? 'unmatched';
          span.updateName(`${ctx.method} ${route}`);
          span.setAttributes({
            'http.route': route,
            'http.response.status_code': ctx.status,
            'switchyard.request_id': ctx.state.requestId,
          });
          if (ctx.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
        }
      },
    );
  };
}
