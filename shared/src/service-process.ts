import type { Registry } from 'prom-client';
import { createEventBus } from './adapters/event-bus-factory';
import type { EventBus } from './events/bus';
import { createLogger, type Logger } from './logging/logger';
import { busMetrics } from './adapters/kafka-metrics';
import { commandMetrics } from './adapters/command-metrics';
import { dependencyMetrics } from './resilience/dependencies';
import { grpcClientMetrics } from './grpc/client-metrics';
import { grpcServerMetrics } from './metrics';
import { startMetricsServer } from './metrics-server';
import { main, stopOnSignals, type RunningService } from './process';
import { startTracing, stopTracing } from './tracing/tracing';

/** What every gRPC service's config carries for running as its own process. */
export interface ServiceProcessConfig {
  logLevel: string;
  kafkaBrokers: string;
  grpcHost: string;
  metricsPort: number;
}

/** What a service's createStores returns: the stores its start() takes, and how to release them. */
export interface OpenedStores<S> {
  stores: S;
  /** Closes the connections the stores hold (MongoDB, Redis). */
  close(): Promise<void>;
}

export interface ServiceProcess<C extends ServiceProcessConfig, S> {
  /** Service name: logger name and Kafka client id. */
  name: string;
  loadConfig(): C;
  openStores(config: C, logger: Logger): Promise<OpenedStores<S>>;
  start(deps: { config: C; bus: EventBus; logger: Logger; stores: S }): Promise<RunningService>;
  /** Registries served on METRICS_PORT besides the gRPC server metrics. */
  registries?: Registry[];
}

/**
 * A service's src/index.ts: tracing (when OTEL_EXPORTER_OTLP_ENDPOINT is set; before any client or
 * server exists), config (fail fast), event bus (Kafka or in-process), stores (MongoDB
 * or in-memory), the service, /metrics on METRICS_PORT, and a graceful stop on SIGTERM in the
 * reverse order. The metrics port is opened here, not in server.ts, so tests and the embedded
 * mesh open none.
 */
export function runServiceProcess<C extends ServiceProcessConfig, S>(
  definition: ServiceProcess<C, S>,
): void {
  // Since the process started: its modules are loaded once this runs.
  const modulesLoadedMs = Math.round(performance.now());
  const bootLogger = createLogger(definition.name);
  main(bootLogger, async () => {
    startTracing(definition.name);
    const config = definition.loadConfig();
    const logger = createLogger(definition.name, config.logLevel);
    const since = () => Math.round(performance.now());
    // Kafka and the stores connect side by side: a replica restarted after a kill -9 joins its
    // consumer groups (and serves) sooner.
    let busMs = 0;
    let storesMs = 0;
    const [bus, opened] = await Promise.all([
      createEventBus({
        kafkaBrokers: config.kafkaBrokers,
        clientId: definition.name,
        logger: logger.child({ component: 'bus' }),
      }).finally(() => (busMs = since())),
      definition.openStores(config, logger).finally(() => (storesMs = since())),
    ]);
    const service = await definition.start({ config, bus, logger, stores: opened.stores });
    // Where a restart's time goes (ms since the process started), e.g. after a kill -9.
    logger.info({ modulesLoadedMs, busMs, storesMs, startedMs: since() }, 'process start phases');
    const metrics =
      config.metricsPort > 0
        ? await startMetricsServer({
            host: config.grpcHost,
            port: config.metricsPort,
            registries: [
              grpcServerMetrics,
              grpcClientMetrics,
              busMetrics,
              commandMetrics,
              dependencyMetrics,
              ...(definition.registries ?? []),
            ],
            logger,
          })
        : undefined;
    stopOnSignals(logger, async () => {
      await metrics?.stop();
      await service.stop();
      await bus.close();
      await opened.close();
      await stopTracing();
    });
  });
}
