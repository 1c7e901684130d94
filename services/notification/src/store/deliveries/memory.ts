import { DELIVERY_STATES, deliveryState, type DeliveryRecord } from '../../model';
import type {
  AttemptToRecord,
  DeliveryCounts,
  DeliveryFilter,
  DeliveryStore,
  PendingDelivery,
} from './port';

/** Created within [since, until) (ISO times compare as strings). */
function createdWithin(d: DeliveryRecord, window: { since?: string; until?: string }): boolean {
  return (
    (!window.since || d.createdAt >= window.since) && (!window.until || d.createdAt < window.until)
  );
}

/**
 * A copy callers may change without touching the stored record: attempts are never changed in
 * place (only appended), so a new array of the same attempts is enough, and far cheaper than a
 * deep clone on the delivery path.
 */
function copy(delivery: DeliveryRecord): DeliveryRecord {
  return { ...delivery, attempts: [...delivery.attempts] };
}

/**
 * Deliveries one process keeps at most in memory (every webhook and callback delivery adds one).
 * Beyond it the deliveries that finished longest ago go first; pending ones are never dropped.
 * A dropped delivery leaves the delivery log, and an event redelivered after it was dropped
 * would be delivered again (same event id; receivers dedupe by webhook-id).
 */
export const IN_MEMORY_DELIVERIES = 50_000;

/** In-memory delivery log, bounded (IN_MEMORY_DELIVERIES): finished deliveries go oldest-finished first. */
export class InMemoryDeliveryStore implements DeliveryStore {
  /** Insertion order doubles as creation order (newest last). */
  private readonly deliveries = new Map<string, DeliveryRecord>();
  /** Finished deliveries in the order they finished: the first to go when the store is full. */
  private readonly finished = new Set<string>();

  constructor(private readonly maxDeliveries = IN_MEMORY_DELIVERIES) {}

  async insert(deliveries: DeliveryRecord[]): Promise<void> {
    for (const delivery of deliveries) {
      if (this.deliveries.has(delivery.id)) continue;
      const stored = copy(delivery);
      this.deliveries.set(delivery.id, stored);
      this.track(stored);
    }
    this.dropFinishedBeyondBound();
  }

  async get(organization: string, id: string): Promise<DeliveryRecord | undefined> {
    const found = this.deliveries.get(id);
    return found && found.organization === organization ? copy(found) : undefined;
  }

  async getMany(ids: string[]): Promise<DeliveryRecord[]> {
    return ids.flatMap((id) => {
      const found = this.deliveries.get(id);
      return found ? [copy(found)] : [];
    });
  }

  async list(organization: string, options: DeliveryFilter): Promise<DeliveryRecord[]> {
    const matches = [...this.deliveries.values()].filter(
      (d) =>
        d.organization === organization &&
        (!options.webhookId || d.webhookId === options.webhookId) &&
        (!options.eventId || d.eventId === options.eventId) &&
        (!options.status || d.status === options.status) &&
        (!options.event || d.event === options.event) &&
        (!options.state || deliveryState(d) === options.state) &&
        createdWithin(d, options),
    );
    return matches.reverse().slice(0, options.limit).map(copy);
  }

  async recordAttempts(attempts: AttemptToRecord[]): Promise<void> {
    for (const { organization, id, result } of attempts) {
      const delivery = this.deliveries.get(id);
      if (!delivery || delivery.organization !== organization) continue;
      if (delivery.status !== 'pending') {
        // Finished meanwhile (cancelled, or by another replica): appended once, success kept.
        const same = JSON.stringify(result.attempt);
        if (delivery.attempts.some((a) => JSON.stringify(a) === same)) continue;
        delivery.attempts.push({ ...result.attempt });
        if (result.status === 'succeeded') delivery.status = 'succeeded';
        continue;
      }
      delivery.attempts.push({ ...result.attempt });
      delivery.status = result.status;
      delivery.url = result.url;
      delivery.nextAttemptAt = result.nextAttemptAt;
      this.track(delivery);
    }
  }

  async cancel(organization: string, id: string, at: string): Promise<DeliveryRecord | undefined> {
    const delivery = this.deliveries.get(id);
    if (!delivery || delivery.organization !== organization) return undefined;
    if (delivery.status === 'pending') {
      delivery.status = 'failed';
      delivery.cancelledAt = at;
      delete delivery.nextAttemptAt;
      this.track(delivery);
    }
    return copy(delivery);
  }

  async count(
    organization: string,
    webhookId: string,
    window: { since?: string; until?: string },
  ): Promise<DeliveryCounts> {
    const counts = Object.fromEntries(DELIVERY_STATES.map((s) => [s, 0])) as DeliveryCounts;
    for (const d of this.deliveries.values())
      if (d.organization === organization && d.webhookId === webhookId && createdWithin(d, window))
        counts[deliveryState(d)]++;
    return counts;
  }

  async pending(after: string, limit: number): Promise<PendingDelivery[]> {
    return [...this.deliveries.values()]
      .filter((d) => d.status === 'pending' && d.id > after)
      .sort((a, b) => (a.id < b.id ? -1 : 1))
      .slice(0, limit)
      .map(({ id, url, nextAttemptAt, createdAt, lane }) => ({
        id,
        url,
        nextAttemptAt,
        createdAt,
        ...(lane && { lane }),
      }));
  }

  private track(delivery: DeliveryRecord): void {
    if (delivery.status !== 'pending') this.finished.add(delivery.id);
  }

  private dropFinishedBeyondBound(): void {
    for (const id of this.finished) {
      if (this.deliveries.size <= this.maxDeliveries) return;
      this.finished.delete(id);
      const delivery = this.deliveries.get(id);
      if (delivery && delivery.status !== 'pending') this.deliveries.delete(id);
    }
  }
}
