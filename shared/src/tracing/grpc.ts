import {
  InterceptingCall,
  status as GrpcStatus,
  type Interceptor,
  type Metadata,
} from '@grpc/grpc-js';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import {
  contextFromCarrier,
  injectTraceContext,
  metadataGetter,
  metadataSetter,
} from './propagation';
import { startSpan, tracingEnabled, withSpan } from './tracing';

/** "/switchyard.content.v1.ContentService/Generate" -> rpc attributes and the span name. */
function rpcOf(path: string) {
  const [service = '', method = ''] = path.replace(/^\//, '').split('/');
  return {
    name: `${service}/${method}`,
    attributes: { 'rpc.system': 'grpc', 'rpc.service': service, 'rpc.method': method },
    /** switchyard.<service>.v1.* names the service. */
    owner: service.split('.')[1],
  };
}

/**
 * A client span per call (unary and streams, until the final status), whose context goes to the
 * server in the call's metadata (traceparent, tracestate). createClient adds it while tracing is on.
 */
export const grpcClientTracingInterceptor: Interceptor = (options, nextCall) => {
  const path = options.method_definition.path;
  // Health checks (readiness probes) are not traced.
  const rpc = path.startsWith('/grpc.health.') ? undefined : rpcOf(path);
  const started = rpc && startSpan(rpc.name, { kind: SpanKind.CLIENT, attributes: rpc.attributes });
  if (!started) return new InterceptingCall(nextCall(options));
  const { span } = started;
  return new InterceptingCall(nextCall(options), {
    start(metadata, _listener, next) {
      injectTraceContext(metadata, metadataSetter, started.context);
      next(metadata, {
        onReceiveStatus(status, nextStatus) {
          try {
            span.setAttribute('rpc.grpc.status_code', status.code);
            if (status.code !== GrpcStatus.OK)
              span.setStatus({ code: SpanStatusCode.ERROR, message: status.details });
            span.end();
          } finally {
            nextStatus(status);
          }
        },
      });
    },
  });
};

/** Runs a server handler in a server span continuing the caller's trace (from the call's metadata). */
export function traceServerCall<T>(
  path: string,
  metadata: Metadata,
  handle: () => Promise<T>,
): Promise<T> {
  if (!tracingEnabled()) return handle();
  const rpc = rpcOf(path);
  return withSpan(
    rpc.name,
    {
      kind: SpanKind.SERVER,
      service: rpc.owner,
      parent: contextFromCarrier(metadata, metadataGetter),
      attributes: rpc.attributes,
    },
    handle,
  );
}
