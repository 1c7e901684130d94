import { runServiceProcess } from '@switchyard/shared';
import { loadContentConfig, startContentService } from './server';
import { createStores } from './store/index';
import { modelMetrics } from './models/model-metrics';

runServiceProcess({
  name: 'content',
  loadConfig: () => loadContentConfig(),
  openStores: createStores,
  registries: [modelMetrics],
  start: startContentService,
});
