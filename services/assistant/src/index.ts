import { runServiceProcess } from '@switchyard/shared';
import { loadAssistantConfig, startAssistantService } from './server';
import { createStores } from './store/index';

runServiceProcess({
  name: 'assistant',
  loadConfig: () => loadAssistantConfig(),
  openStores: createStores,
  start: ({ config, bus, logger, stores }) =>
    startAssistantService({
      config,
      bus,
      logger,
      sessions: stores.sessions,
      outboxStore: stores.outbox,
      answerStore: stores.answers,
      knowledge: stores.knowledge,
      profiles: stores.profiles,
      locks: stores.state.locks,
    }),
});
