import { createLogger, InMemoryEventBus, main, stopOnSignals } from '@switchyard/shared';
import { loadContentConfig, startContentService } from './server';

const logger = createLogger('content');

main(logger, async () => {
  const config = loadContentConfig();
  logger.level = config.logLevel;
  // Embedded bus until the Kafka adapter lands; events stay in this process.
  const bus = new InMemoryEventBus({ logger });
  const service = await startContentService({ config, bus, logger });
  stopOnSignals(logger, async () => {
    await service.stop();
    await bus.close();
  });
});
