import { status as GrpcStatus } from '@grpc/grpc-js';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

/**
 * gRPC server metrics of every service in this process, recorded by the unary() and
 * serverStream() adapters. Names and labels follow go-grpc-prometheus so existing dashboards
 * and alerts apply. Holds no process metrics, so it merges with any service registry.
 */
export const grpcServerMetrics = new Registry();

const GRPC_LABELS = ['grpc_service', 'grpc_method', 'grpc_code'] as const;

export const grpcServerHandlingSeconds = new Histogram({
  name: 'grpc_server_handling_seconds',
  help: 'Histogram of response latency (seconds) of gRPC that had been application-level handled by the server.',
  labelNames: GRPC_LABELS,
  // prometheus.DefBuckets, as in go-grpc-prometheus.
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [grpcServerMetrics],
});

export const grpcServerHandledTotal = new Counter({
  name: 'grpc_server_handled_total',
  help: 'Total number of RPCs completed on the server, regardless of success or failure.',
  labelNames: GRPC_LABELS,
  registers: [grpcServerMetrics],
});

/** "/pkg.Service/Method" -> service and method labels. */
export function grpcMethodLabels(path: string): { grpc_service: string; grpc_method: string } {
  const [, service, method] = path.split('/');
  return { grpc_service: service || 'unknown', grpc_method: method || 'unknown' };
}

/** Starts timing one call; the returned function records it with its final status (once). */
export function startGrpcCallTimer(path: string): (code: GrpcStatus) => void {
  const startedAt = process.hrtime.bigint();
  let recorded = false;
  return (code) => {
    if (recorded) return;
    recorded = true;
    const labels = { ...grpcMethodLabels(path), grpc_code: GrpcStatus[code] ?? String(code) };
    grpcServerHandledTotal.inc(labels);
    grpcServerHandlingSeconds.observe(labels, Number(process.hrtime.bigint() - startedAt) / 1e9);
  };
}

let processMetrics: Registry | undefined;

/** prom-client's default process metrics (CPU, memory, event loop), collected once per process. */
export function processMetricsRegistry(): Registry {
  if (!processMetrics) {
    processMetrics = new Registry();
    collectDefaultMetrics({ register: processMetrics });
  }
  return processMetrics;
}

/** The Prometheus text of the given registries plus the process metrics. */
export async function metricsExposition(
  registries: Registry[],
): Promise<{ contentType: string; body: string }> {
  const merged = Registry.merge([...registries, processMetricsRegistry()]);
  return { contentType: merged.contentType, body: await merged.metrics() };
}
