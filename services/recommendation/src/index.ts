import { createEventBus, createLogger, grpcServerMetrics, main, startMetricsServer, stopOnSignals } from '@switchyard/shared';
import { loadRecommendationConfig, startRecommendationService } from './server';
import { createStores } from './store/index';

const bootLogger = createLogger('recommendation');

main(bootLogger, async () => {
  const config = loadRecommendationConfig();
  const logger = createLogger('recommendation', config.logLevel);
  const bus = await createEventBus({ kafkaBrokers: config.kafkaBrokers, clientId: 'recommendation', logger: logger.child({ component: 'bus' }) });
  const stores = await createStores(config, logger);
  const service = await startRecommendationService({ config, bus, logger, stores });
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
