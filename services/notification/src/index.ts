import { createEventBus, createLogger, main, stopOnSignals } from '@switchyard/shared';
import { loadNotificationConfig } from './config';
import { startMetricsServer } from './metrics-server';
import { startNotificationService } from './server';
import { createStores } from './store';

const logger = createLogger('notification');

main(logger, async () => {
  const config = loadNotificationConfig();
  logger.level = config.logLevel;
  const bus = await createEventBus({ kafkaBrokers: config.kafkaBrokers, clientId: 'notification', logger: logger.child({ component: 'bus' }) });
  const opened = await createStores(config, logger);
  logger.info({ stores: opened.backend }, 'stores ready');
  const service = await startNotificationService({ config, bus, logger, stores: opened.stores });
  const metrics = config.metricsPort > 0 ? await startMetricsServer({ host: config.grpcHost, port: config.metricsPort, logger }) : undefined;
  stopOnSignals(logger, async () => {
    await metrics?.close();
    await service.stop();
    await bus.close();
    await opened.close();
  });
});
