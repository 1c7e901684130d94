import { createEventBus, createLogger, grpcServerMetrics, main, startMetricsServer, stopOnSignals } from '@switchyard/shared';
import { loadContentConfig, startContentService } from './server';
import { createStores } from './store/index';

const logger = createLogger('content');

main(logger, async () => {
  const config = loadContentConfig();
  logger.level = config.logLevel;
  const bus = await createEventBus({ kafkaBrokers: config.kafkaBrokers, clientId: 'content', logger });
  const stores = await createStores(config, logger);
  const service = await startContentService({ config, bus, logger, requestStore: stores.requestStore, outboxStore: stores.outbox });
  // Started here, not in server.ts, so tests and the embedded mesh open no extra port.
  const metrics = config.metricsPort > 0
    ? await startMetricsServer({ host: config.grpcHost, port: config.metricsPort, registries: [grpcServerMetrics], logger })
    : undefined;
  stopOnSignals(logger, async () => {
    await metrics?.stop();
    await service.stop();
    await bus.close();
    await stores.close();
  });
});
