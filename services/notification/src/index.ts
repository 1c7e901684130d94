import { runServiceProcess } from '@switchyard/shared';
import { loadNotificationConfig } from './config';
import { notificationMetrics } from './metrics';
import { startNotificationService } from './server';
import { createStores } from './store';

runServiceProcess({
  name: 'notification',
  loadConfig: () => loadNotificationConfig(),
  openStores: createStores,
  start: ({ config, bus, logger, stores }) =>
    startNotificationService({ config, bus, logger, stores: stores.stores }),
  registries: [notificationMetrics],
});
