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
import type { ThresholdDeps } from '../usage/thresholds';
import { UsageLedger } from '../usage/usage-ledger';

export const CONSUMER_GROUP = 'notification';

export interface ConsumerDeps {
  bus: EventBus;
  stores: NotificationStores;
  engine: DeliveryEngine;
  config: NotificationConfig;
  logger: Logger;
  /** Consumer group (default CONSUMER_GROUP); a new group re-reads every retained event. */
  group?: string;
}

interface Handlers {
  fanOut: WebhookFanOut;
  ledger: UsageLedger;
  thresholds: ThresholdDeps;
}

async function dispatch(event: AnyEvent, deps: ConsumerDeps, { fanOut, ledger, thresholds }: Handlers): Promise<void> {
  switch (event.type) {
    case 'request.completed':
    case 'request.failed':
      return handleResultEvent(event, deps.engine, fanOut);
    case 'usage.recorded':
      return handleUsageEvent(event, ledger, thresholds);
    case 'invoice.paid':
    case 'invoice.failed':
      return handleBillingEvent(event, fanOut);
    case 'data.updated':
      return handleDataEvent(event, fanOut);
    case 'support.escalated':
      return handleSupportEvent(event, fanOut);
    default:
      return; // e.g. usage.threshold_reached shares the usage topic; nothing to send for it.
  }
}

/**
 * Subscribes the 'notification' group to results, usage, billing and data. Repeats of an event id
 * are skipped; the work itself is idempotent too, so a crash before the mark repeats nothing.
 */
export function subscribeConsumers(deps: ConsumerDeps): Promise<Subscription> {
  const fanOut = new WebhookFanOut(deps.stores.webhooks, deps.engine);
  const handlers: Handlers = {
    fanOut,
    ledger: new UsageLedger(deps.stores.usageLedger),
    thresholds: { stores: deps.stores, fanOut, bus: deps.bus, defaults: deps.config.usage },
  };
  const processed = deps.stores.processedEvents;
  return deps.bus.subscribe({
    group: deps.group ?? CONSUMER_GROUP,
    topics: [Topics.results, Topics.usage, Topics.billing, Topics.data],
    handler: async (event) => {
      if (await processed.has(event.organization, event.id)) return;
      await dispatch(event, deps, handlers);
      await processed.mark(event.organization, event.id);
      deps.logger.debug({ eventId: event.id, type: event.type }, 'event handled');
    },
  });
}
