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

/** What a running delivery engine reports when scraped; gauges sum over running engines. */
export interface EngineGauges {
  /** Deliveries in the durable schedule (waiting for a first or further attempt). */
  pending(): Promise<number>;
  /** Claimed attempts waiting in memory for a free slot. */
  queued(): number;
  /** Webhooks disabled now (all organizations of the engine's store). */
  disabledWebhooks(): Promise<number>;
}

const engines = new Set<EngineGauges>();

export function trackEngine(gauges: EngineGauges): () => void {
  engines.add(gauges);
  return () => engines.delete(gauges);
}

async function sum(sources: Iterable<() => Promise<number> | number>): Promise<number> {
  const counts = await Promise.all([...sources].map((source) => source()));
  return counts.reduce((total, count) => total + count, 0);
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
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 15, 60, 300],
  registers: [notificationMetrics],
});

export const rateLimitedTotal = new Counter({
  name: 'notification_webhook_rate_limited_total',
  help: "Deliveries put back to wait for a send slot of their webhook's rateLimit.",
  registers: [notificationMetrics],
});

export const domainEventsRejectedTotal = new Counter({
  name: 'notification_domain_events_rejected_total',
  help: 'Domain events from the topic refused and sent to the dead-letter topic, by reason (unknown_type, deleted_type, unknown_version, schema).',
  labelNames: ['reason'] as const,
  registers: [notificationMetrics],
});

export const webhooksDisabledTotal = new Counter({
  name: 'notification_webhooks_disabled_total',
  help: 'Webhooks disabled by delivery health (gone: 410 answered; failing: failing continuously).',
  labelNames: ['reason'] as const,
  registers: [notificationMetrics],
});

/** A gauge set, when scraped, to the sum of what the sources report now. */
function summedGauge(
  name: string,
  help: string,
  sources: () => Iterable<() => Promise<number> | number>,
): Gauge {
  return new Gauge({
    name,
    help,
    registers: [notificationMetrics],
    async collect() {
      this.set(await sum(sources()));
    },
  });
}

export const pendingDeliveries = summedGauge(
  'notification_pending_deliveries',
  'Deliveries in the due queue: waiting for a further attempt (or a first one a batch did not wait for), or claimed.',
  () => [...engines].map((engine) => () => engine.pending()),
);

export const queuedAttempts = summedGauge(
  'notification_queued_attempts',
  'Claimed attempts waiting in memory for a free slot (per-host and overall limits).',
  () => [...engines].map((engine) => () => engine.queued()),
);

export const disabledWebhooks = summedGauge(
  'notification_disabled_webhooks',
  'Webhooks currently disabled.',
  () => [...engines].map((engine) => () => engine.disabledWebhooks()),
);
