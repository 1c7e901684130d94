import { createEventBus, createLogger, grpcServerMetrics, main, startMetricsServer, stopOnSignals } from '@switchyard/shared';
import { loadAssistantConfig, startAssistantService } from './server';
import { createStores } from './store/index';

const logger = createLogger('assistant');

main(logger, async () => {
  const config = loadAssistantConfig();
  logger.level = config.logLevel;
  const bus = await createEventBus({ kafkaBrokers: config.kafkaBrokers, clientId: 'assistant', logger });
  const stores = await createStores(config, logger);
  const service = await startAssistantService({ config, bus, logger, sessions: stores.sessions, outboxStore: stores.outbox });
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
