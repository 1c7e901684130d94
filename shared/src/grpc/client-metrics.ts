import { InterceptingCall, status as GrpcStatus, type Interceptor } from '@grpc/grpc-js';
import { Counter, Histogram, Registry } from 'prom-client';
import { grpcMethodLabels } from '../metrics';

/**
 * gRPC client metrics of this process (every call made through createClient), named like
 * go-grpc-prometheus's client metrics so existing dashboards and alerts apply.
 */
export const grpcClientMetrics = new Registry();

const LABELS = ['grpc_service', 'grpc_method', 'grpc_code'] as const;

const handledTotal = new Counter({
  name: 'grpc_client_handled_total',
  help: 'Total number of RPCs completed by the client, regardless of success or failure.',
  labelNames: LABELS,
  registers: [grpcClientMetrics],
});

const handlingSeconds = new Histogram({
  name: 'grpc_client_handling_seconds',
  help: 'Histogram of response latency (seconds) of the gRPC until it is finished by the application.',
  labelNames: LABELS,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [grpcClientMetrics],
});

/** Records every call's status and duration (streams: until their final status). */
export const grpcClientMetricsInterceptor: Interceptor = (options, nextCall) => {
  const path = options.method_definition.path;
  const startedAt = process.hrtime.bigint();
  return new InterceptingCall(nextCall(options), {
    start(metadata, _listener, next) {
      next(metadata, {
        onReceiveStatus(status, nextStatus) {
          // Counting never keeps the status from the caller (a throw here would reach the process).
          try {
            const labels = {
              ...grpcMethodLabels(path),
              grpc_code: GrpcStatus[status.code] ?? String(status.code),
            };
            handledTotal.inc(labels);
            handlingSeconds.observe(labels, Number(process.hrtime.bigint() - startedAt) / 1e9);
          } finally {
            nextStatus(status);
          }
        },
      });
    },
  });
};
