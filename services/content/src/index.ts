import { runServiceProcess } from '@switchyard/shared';
import { loadContentConfig, startContentService } from './server';
import { createStores } from './store/index';
import { modelMetrics } from './models/model-metrics';

runServiceProcess({
  name: 'content',
  loadConfig: () => loadContentConfig(),
  openStores: createStores,
  registries: [modelMetrics],
  start: ({ config, bus, logger, stores }) =>
    startContentService({
      config,
      bus,
      logger,
      requestStore: stores.requestStore,
      outboxStore: stores.outbox,
      answerStore: stores.answers,
    }),
});
