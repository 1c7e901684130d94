import { createLogger, InMemoryEventBus, main, stopOnSignals } from '@switchyard/shared';
import { loadAssistantConfig, startAssistantService } from './server';

const logger = createLogger('assistant');

main(logger, async () => {
  const config = loadAssistantConfig();
  logger.level = config.logLevel;
  // Standalone runs use the in-process bus; Kafka comes with the deployment work.
  const bus = new InMemoryEventBus({ logger });
  const service = await startAssistantService({ config, bus, logger });
  stopOnSignals(logger, async () => {
    await service.stop();
    await bus.close();
  });
});
