import { runServiceProcess } from '@switchyard/shared';
import { loadContentConfig, startContentService } from './server';
import { createStores } from './store/index';

runServiceProcess({
  name: 'content',
  loadConfig: () => loadContentConfig(),
  openStores: createStores,
  start: ({ config, bus, logger, stores }) =>
    startContentService({ config, bus, logger, requestStore: stores.requestStore, outboxStore: stores.outbox }),
});
