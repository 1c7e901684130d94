import { runServiceProcess } from '@switchyard/shared';
import { loadRecommendationConfig, startRecommendationService } from './server';
import { createStores } from './store/index';

runServiceProcess({
  name: 'recommendation',
  loadConfig: () => loadRecommendationConfig(),
  openStores: createStores,
  start: startRecommendationService,
});
