import { Counter, Gauge } from 'prom-client';
import { busMetrics } from './kafka-metrics';
import type { OutboxStore } from './outbox-store';

/** The outboxes of the publishers running in this process; the gauges read them when scraped. */
const outboxes = new Set<OutboxStore>();

/** Counts the store's events (depth and oldest age) while its publisher runs; returns the undo. */
export function trackOutbox(store: OutboxStore): () => void {
  outboxes.add(store);
  return () => outboxes.delete(store);
}

/** One value per tracked outbox; an outbox whose store cannot be read is left out. */
async function readOutboxes<T>(read: (store: OutboxStore) => Promise<T>): Promise<T[]> {
  const values = await Promise.all(
    [...outboxes].map((store) => read(store).catch(() => undefined)),
  );
  return values.filter((value): value is Awaited<T> => value !== undefined);
}

new Gauge({
  name: 'outbox_events',
  help: 'Events waiting in the outbox for the bus to accept them.',
  registers: [busMetrics],
  async collect() {
    const counts = await readOutboxes((store) => store.count());
    this.set(counts.reduce((sum, count) => sum + count, 0));
  },
});

new Gauge({
  name: 'outbox_oldest_event_age_seconds',
  help: 'Age of the oldest event waiting in the outbox (time since it happened; 0 when empty).',
  registers: [busMetrics],
  async collect() {
    const oldest = (await readOutboxes((store) => store.oldest(1))).flat();
    const ages = oldest.map(({ event }) =>
      Math.max(0, (Date.now() - Date.parse(event.time)) / 1000),
    );
    this.set(Math.max(0, ...ages));
  },
});

/** Events stored in the outbox because the bus failed or was slow. */
export const outboxStoredTotal = new Counter({
  name: 'outbox_stored_events_total',
  help: 'Events kept in the outbox because a direct publish failed or timed out (or earlier ones were waiting).',
  registers: [busMetrics],
});
