import { createEventBus, createLogger, main, stopOnSignals } from '@switchyard/shared';
import { loadRecommendationConfig, startRecommendationService } from './server';
import { createStores } from './store/index';

const bootLogger = createLogger('recommendation');

main(bootLogger, async () => {
  const config = loadRecommendationConfig();
  const logger = createLogger('recommendation', config.logLevel);
  const bus = await createEventBus({ kafkaBrokers: config.kafkaBrokers, clientId: 'recommendation', logger: logger.child({ component: 'bus' }) });
  const stores = await createStores(config, logger);
  const service = await startRecommendationService({ config, bus, logger, stores });
  stopOnSignals(logger, async () => {
    await service.stop();
    await bus.close();
    await stores.close();
  });
});
