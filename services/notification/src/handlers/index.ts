import { withDeps, type NotificationServiceServer } from '@switchyard/shared';
import { cancelDelivery } from './cancel-delivery';
import { deleteWebhook } from './delete-webhook';
import type { HandlerDeps } from './deps';
import {
  createEventType,
  deleteEventType,
  getEventCatalog,
  getEventType,
  listEventTypes,
  updateEventType,
} from './event-types';
import { getBudgetSpend } from './get-budget-spend';
import { getDeliveryStats } from './get-delivery-stats';
import { getSigningSecret } from './get-signing-secret';
import { getUsage } from './get-usage';
import { getWebhook } from './get-webhook';
import { listDeliveries } from './list-deliveries';
import { getEvent, listEvents } from './list-events';
import { listUsageCalls } from './list-usage-calls';
import { listWebhooks } from './list-webhooks';
import { publishEvents } from './publish-events';
import { putOrganizationPolicy } from './put-organization-policy';
import { recoverWebhook } from './recover-webhook';
import { registerWebhook } from './register-webhook';
import { replayDelivery } from './replay-delivery';
import { rotateSigningSecret } from './rotate-signing-secret';
import { rotateWebhookSecret } from './rotate-webhook-secret';
import { sendTestEvent } from './send-test-event';
import { updateWebhook } from './update-webhook';

/** The service's handlers: each RPC a transport-free function, bound to the service's deps. */
export function notificationHandlers(deps: HandlerDeps): NotificationServiceServer {
  return withDeps(deps, {
    registerWebhook,
    listWebhooks,
    getWebhook,
    updateWebhook,
    deleteWebhook,
    rotateWebhookSecret,
    listDeliveries,
    replayDelivery,
    cancelDelivery,
    getDeliveryStats,
    recoverWebhook,
    sendTestEvent,
    getSigningSecret,
    rotateSigningSecret,
    putOrganizationPolicy,
    getUsage,
    listUsageCalls,
    getBudgetSpend,
    createEventType,
    listEventTypes,
    getEventType,
    updateEventType,
    deleteEventType,
    getEventCatalog,
    publishEvents,
    listEvents,
    getEvent,
  });
}

export type { HandlerDeps } from './deps';
