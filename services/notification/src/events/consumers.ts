import { Topics, type AnyEvent, type EventBus, type Logger, type Subscription } from '@switchyard/shared';
import type { NotificationConfig } from '../config';
import type { DeliveryEngine } from '../delivery/engine';
import type { NotificationStores } from '../store';
import { handleBillingEvent } from './billing-events';
import { handleDataEvent } from './data-events';
import { WebhookFanOut } from './fan-out';
import { handleResultEvent } from './result-events';
import { handleSupportEvent } from './support-events';
import { handleUsageEvent } from './usage-events';
import { UsageLedger } from '../usage/usage-ledger';

/** The delivery consumers' group; the usage consumers' group is this plus USAGE_GROUP_SUFFIX. */
export const CONSUMER_GROUP = 'notification';
export const USAGE_GROUP_SUFFIX = '-usage';

export interface ConsumerDeps {
  bus: EventBus;
  stores: NotificationStores;
  engine: DeliveryEngine;
  config: NotificationConfig;
  logger: Logger;
  /** Consumer group (default CONSUMER_GROUP); a new group re-reads every retained event. */
  group?: string;
}

/** results, billing and data events: each becomes deliveries (results also the caller's callback). */
async function deliveryEvent(event: AnyEvent, fanOut: WebhookFanOut): Promise<void> {
  switch (event.type) {
    case 'request.completed':
    case 'request.failed':
      return handleResultEvent(event, fanOut);
    case 'invoice.paid':
    case 'invoice.failed':
      return handleBillingEvent(event, fanOut);
    case 'data.updated':
      return handleDataEvent(event, fanOut);
    case 'support.escalated':
      return handleSupportEvent(event, fanOut);
    default:
      return;
  }
}

/**
 * One consumer per event family, so deliveries never wait behind usage accounting:
 * - deliveries (results, billing, data): a repeat of an event creates nothing new, since a
 *   delivery's identity is (event id, target); its first attempts start as soon as it is recorded;
 * - usage: repeats of an event id are skipped; the work is idempotent too, so a crash before the
 *   mark repeats nothing.
 */
export async function subscribeConsumers(deps: ConsumerDeps): Promise<Subscription> {
  const fanOut = new WebhookFanOut(deps.stores.webhooks, deps.engine);
  const group = deps.group ?? CONSUMER_GROUP;
  const deliveries = await deps.bus.subscribe({
    group,
    topics: [Topics.results, Topics.billing, Topics.data],
    handler: (event) => deliveryEvent(event, fanOut),
  });
  const ledger = new UsageLedger(deps.stores.usageLedger);
  const thresholds = { stores: deps.stores, fanOut, bus: deps.bus, defaults: deps.config.usage };
  const processed = deps.stores.processedEvents;
  let usage: Subscription;
  try {
    usage = await deps.bus.subscribe({
      group: `${group}${USAGE_GROUP_SUFFIX}`,
      topics: [Topics.usage],
      handler: async (event) => {
        // usage.threshold_reached shares the topic; nothing to do for it here.
        if (event.type !== 'usage.recorded' || (await processed.has(event.organization, event.id))) return;
        await handleUsageEvent(event, ledger, thresholds);
        await processed.mark(event.organization, event.id);
      },
    });
  } catch (error) {
    await deliveries.close();
    throw error;
  }
  return { close: async () => void (await Promise.all([deliveries.close(), usage.close()])) };
}
