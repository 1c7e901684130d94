import {
  inConsumedTrace,
  Topics,
  type AnyEvent,
  type EventBus,
  type EventEnvelope,
  type Logger,
  type Subscription,
} from '@switchyard/shared';
import type { NotificationConfig } from '../config';
import type { DeliveryEngine, LaneTurn } from '../delivery/engine';
import type { NotificationStores } from '../store';
import { handleBillingEvent } from './billing-events';
import { handleDataEvent } from './data-events';
import type { EventSchemas } from '../event-types/schemas';
import { checkDomainEvents, handleDomainEvent, type DomainEvent } from './domain-events';
import { WebhookFanOut, type EventFanOut } from './fan-out';
import { handleResultEvent } from './result-events';
import { handleSupportEvent } from './support-events';
import { handleUsageEvents } from './usage-events';
import { UsageLedger } from '../usage/usage-ledger';
import { checkExhaustion } from '../usage/thresholds';
import { notifyBudgetThreshold } from '../usage/budget-thresholds';

/** The delivery consumers' group; the usage consumers' group is this plus USAGE_GROUP_SUFFIX. */
export const CONSUMER_GROUP = 'notification';
export const USAGE_GROUP_SUFFIX = '-usage';
/** Delivery events of one partition's batch handled at the same time (each is idempotent by event id). */
const DELIVERY_CONCURRENCY = 8;
/** Batches of one partition handled at once: one sends while the one before it is written. */
const DELIVERY_BATCHES_IN_FLIGHT = 2;
/** Added ledger lag at most, for batches of tens of events instead of one or two under a steady load. */
const USAGE_BATCH_WAIT_MS = 250;

export interface ConsumerDeps {
  bus: EventBus;
  stores: NotificationStores;
  engine: DeliveryEngine;
  config: NotificationConfig;
  logger: Logger;
  /** Domain events from the topic are checked against their types' schemas. */
  eventSchemas: EventSchemas;
  /** Consumer group (default CONSUMER_GROUP); a new group re-reads every retained event. */
  group?: string;
}

/** results, billing and data events: each becomes deliveries (results also the caller's callback). */
async function deliveryEvent(event: AnyEvent, fanOut: EventFanOut): Promise<void> {
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
 * One consumer per event family, both batched (each partition's events as they arrive):
 * - deliveries (results, billing, data): the batch's events become deliveries (up to
 *   DELIVERY_CONCURRENCY handlers at once), attempted at once and then logged together with
 *   their outcomes (each organization's webhooks read once, one log write for the batch); the
 *   batch is committed once they are logged. A delivery's identity is (event id, target), so an
 *   event handled again creates nothing new and is not sent again;
 * - usage: the ledger counts a whole batch in a few bulk writes, exactly once (see UsageLedger),
 *   so results and callbacks never wait behind usage accounting and the ledger keeps up.
 */
export async function subscribeConsumers(deps: ConsumerDeps): Promise<Subscription> {
  const fanOut = new WebhookFanOut(deps.stores.webhooks, deps.engine, deps.stores.events);
  const group = deps.group ?? CONSUMER_GROUP;
  const ledger = new UsageLedger(deps.stores.usageLedger);
  const thresholds = { stores: deps.stores, fanOut, bus: deps.bus, defaults: deps.config.usage };
  /** One consumed batch of delivery events: the domain events checked, then every event's deliveries. */
  const handleDeliveryBatch = async (events: AnyEvent[], mayRepeat: boolean, turn: LaneTurn) => {
    const batch = fanOut.batch();
    const domain = await checkDomainEvents(events.filter(isDomainEvent), {
      eventTypes: deps.stores.eventTypes,
      schemas: deps.eventSchemas,
      bus: deps.bus,
      rejectedEvents: deps.stores.rejectedEvents,
      group,
    });
    // One after the other, so the batch keeps their publish order (deliveries per key go in it).
    for (const event of domain) await inConsumedTrace(event, () => handleDomainEvent(event, batch));
    const others = events.filter((event) => !isDomainEvent(event));
    await eachLimited(others, DELIVERY_CONCURRENCY, (event) =>
      inConsumedTrace(event, () => deliveryEvent(event, batch)),
    );
    await batch.flush({ mayRepeat, turn });
  };
  /** The last consumed batch's turn to put its ordered deliveries in their lanes. */
  let laneTail = Promise.resolve();
  // Both groups joined at once: after a kill -9 each join waits for the dead member to be dropped.
  const joined = await Promise.allSettled([
    deps.bus.subscribeBatch({
      group,
      topics: [Topics.results, Topics.billing, Topics.data, Topics.domain],
      // The next batch's first attempts go out while the one before is being logged.
      inFlight: DELIVERY_BATCHES_IN_FLIGHT,
      // Each event in the trace its publisher started (gateway -> content -> bus -> here -> the webhook POST).
      // The batch's deliveries are recorded together (a few writes per batch, not per event).
      handler: async (events, { mayRepeat }) => {
        // Taken at once, in the order batches are handed over: ordered deliveries go in their
        // lanes batch after batch, whatever order the batches' handlers finish in.
        const previous = laneTail;
        let release!: () => void;
        laneTail = new Promise<void>((resolve) => (release = resolve));
        try {
          await handleDeliveryBatch(events, mayRepeat, { previous, release });
        } finally {
          release();
        }
      },
    }),
    deps.bus.subscribeBatch({
      group: `${group}${USAGE_GROUP_SUFFIX}`,
      topics: [Topics.usage],
      // A ledger batch costs a handful of writes whatever its size: gather events for up to this long.
      maxWaitMs: USAGE_BATCH_WAIT_MS,
      // usage.threshold_reached shares the topic; nothing to do for it here. usage.refused:
      // counts of calls the gateway refused, into the ledger with usage.
      handler: async (events) => {
        await handleUsageEvents(events.filter(isCounted), ledger, thresholds);
        for (const event of events.filter(isQuotaExhausted))
          await checkExhaustion(thresholds, event);
        for (const event of events.filter(isBudgetThreshold))
          await notifyBudgetThreshold(fanOut, event);
      },
    }),
  ]);
  const subscriptions = joined.flatMap((j) => (j.status === 'fulfilled' ? [j.value] : []));
  const close = async () => void (await Promise.all(subscriptions.map((s) => s.close())));
  const failed = joined.find((j) => j.status === 'rejected');
  if (failed) {
    await close();
    throw failed.reason;
  }
  return { close };
}

/** What the ledger counts: usage, and calls the gateway refused. */
function isCounted(
  event: AnyEvent,
): event is EventEnvelope<'usage.recorded'> | EventEnvelope<'usage.refused'> {
  return event.type === 'usage.recorded' || event.type === 'usage.refused';
}

function isDomainEvent(event: AnyEvent): event is DomainEvent {
  return event.type === 'domain.event';
}

function isQuotaExhausted(event: AnyEvent): event is EventEnvelope<'usage.quota_exhausted'> {
  return event.type === 'usage.quota_exhausted';
}

function isBudgetThreshold(event: AnyEvent): event is EventEnvelope<'budget.threshold_reached'> {
  return event.type === 'budget.threshold_reached';
}

/** Runs work for every item, at most limit at a time; fails (after all settled) if any failed. */
async function eachLimited<T>(
  items: T[],
  limit: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const failures: unknown[] = [];
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++]!;
      await work(item).catch((error: unknown) => void failures.push(error));
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failures.length > 0) throw failures[0];
}
