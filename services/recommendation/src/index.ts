import { createLogger, InMemoryEventBus, main, stopOnSignals } from '@switchyard/shared';
import { loadRecommendationConfig, startRecommendationService } from './server';

const bootLogger = createLogger('recommendation');

main(bootLogger, async () => {
  const config = loadRecommendationConfig();
  const logger = createLogger('recommendation', config.logLevel);
  // Standalone process: in-process bus until the Kafka adapter is wired in.
  const bus = new InMemoryEventBus({ logger: logger.child({ component: 'bus' }) });
  const service = await startRecommendationService({ config, bus, logger });
  stopOnSignals(logger, async () => {
    await service.stop();
    await bus.close();
  });
});
