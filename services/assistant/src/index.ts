import { createEventBus, createLogger, main, stopOnSignals } from '@switchyard/shared';
import { loadAssistantConfig, startAssistantService } from './server';
import { createStores } from './store/index';

const logger = createLogger('assistant');

main(logger, async () => {
  const config = loadAssistantConfig();
  logger.level = config.logLevel;
  const bus = await createEventBus({ kafkaBrokers: config.kafkaBrokers, clientId: 'assistant', logger });
  const stores = await createStores(config, logger);
  const service = await startAssistantService({ config, bus, logger, sessions: stores.sessions, outboxStore: stores.outbox });
  stopOnSignals(logger, async () => {
    await service.stop();
    await bus.close();
    await stores.close();
  });
});
