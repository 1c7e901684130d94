import { runServiceProcess } from '@switchyard/shared';
import { assistantMetrics, loadAssistantConfig, startAssistantService } from './server';
import { createStores } from './store';

runServiceProcess({
  name: 'assistant',
  loadConfig: () => loadAssistantConfig(),
  openStores: createStores,
  registries: [assistantMetrics],
  start: startAssistantService,
});
