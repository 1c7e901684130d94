import { createLogger, InMemoryEventBus, main, stopOnSignals } from '@switchyard/shared';
import { loadNotificationConfig } from './config';
import { startNotificationService } from './server';

const logger = createLogger('notification');

main(logger, async () => {
  const config = loadNotificationConfig();
  logger.level = config.logLevel;
  // In-memory bus until the Kafka adapter lands; events then arrive from the other services.
  const bus = new InMemoryEventBus({ logger: logger.child({ component: 'bus' }) });
  const service = await startNotificationService({ config, bus, logger });
  stopOnSignals(logger, async () => {
    await service.stop();
    await bus.close();
  });
});
