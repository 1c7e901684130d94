import { grpcServerMetrics, metricsExposition } from '@switchyard/shared';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The notification service's own metrics. An embedded mesh can merge this registry with its
 * own (Registry.merge); it holds no process metrics, so merging never duplicates those.
 */
export const notificationMetrics = new Registry();

/** What GET /metrics serves: the service and gRPC server metrics (shared) plus process metrics. */
export const SERVED_REGISTRIES = [notificationMetrics, grpcServerMetrics];

export function metricsText(): Promise<{ contentType: string; body: string }> {
  return metricsExposition(SERVED_REGISTRIES);
}

/** Pending-delivery counters of running engines; the gauge sums them when scraped. */
const pendingSources = new Set<() => Promise<number>>();

export function trackPending(source: () => Promise<number>): () => void {
  pendingSources.add(source);
  return () => pendingSources.delete(source);
}

export const attemptsTotal = new Counter({
  name: 'notification_webhook_attempts_total',
  help: 'Webhook delivery attempts by outcome (succeeded, failed).',
  labelNames: ['outcome'] as const,
  registers: [notificationMetrics],
});

export const failuresTotal = new Counter({
  name: 'notification_webhook_failures_total',
  help: 'Failed webhook attempts by reason.',
  labelNames: ['reason'] as const,
  registers: [notificationMetrics],
});

export const attemptDuration = new Histogram({
  name: 'notification_webhook_attempt_duration_seconds',
  help: 'Duration of one webhook HTTP attempt.',
  buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30],
  registers: [notificationMetrics],
});

export const eventToFirstAttempt = new Histogram({
  name: 'notification_event_to_first_attempt_seconds',
  help: 'Time from the event happening to the first delivery attempt.',
  buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300],
  registers: [notificationMetrics],
});

export const pendingDeliveries = new Gauge({
  name: 'notification_pending_deliveries',
  help: 'Deliveries waiting for a (further) attempt.',
  registers: [notificationMetrics],
  async collect() {
    const counts = await Promise.all([...pendingSources].map((source) => source()));
    this.set(counts.reduce((sum, count) => sum + count, 0));
  },
});
