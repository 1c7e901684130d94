import { createEventBus, createLogger, main, stopOnSignals } from '@switchyard/shared';
import { loadContentConfig, startContentService } from './server';
import { createStores } from './store/index';

const logger = createLogger('content');

main(logger, async () => {
  const config = loadContentConfig();
  logger.level = config.logLevel;
  const bus = await createEventBus({ kafkaBrokers: config.kafkaBrokers, clientId: 'content', logger });
  const stores = await createStores(config, logger);
  const service = await startContentService({ config, bus, logger, requestStore: stores.requestStore, outboxStore: stores.outbox });
  stopOnSignals(logger, async () => {
    await service.stop();
    await bus.close();
    await stores.close();
  });
});
