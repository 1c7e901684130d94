import { Counter } from 'prom-client';
import { notificationMetrics } from '../metrics';

/** usage_threshold notifications sent, by share of the quota (0.9 = 90 %): "quota near exhaustion". */
export const usageThresholdsReached = new Counter({
  name: 'notification_usage_thresholds_reached_total',
  help: 'Organizations whose period usage crossed a share of their token quota (one per organization, period and share).',
  labelNames: ['share'] as const,
  registers: [notificationMetrics],
});
