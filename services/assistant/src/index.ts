import { runServiceProcess } from '@switchyard/shared';
import { loadAssistantConfig, startAssistantService } from './server';
import { createStores } from './store';

runServiceProcess({
  name: 'assistant',
  loadConfig: () => loadAssistantConfig(),
  openStores: createStores,
  start: ({ config, bus, logger, stores }) =>
    startAssistantService({ config, bus, logger, stores }),
});
