import { runServiceProcess } from '@switchyard/shared';
import { loadNotificationConfig } from './config';
import { notificationMetrics } from './metrics';
import { startNotificationService } from './server';
import { createStores } from './store';

runServiceProcess({
  name: 'notification',
  loadConfig: () => loadNotificationConfig(),
  openStores: createStores,
  start: startNotificationService,
  registries: [notificationMetrics],
});
