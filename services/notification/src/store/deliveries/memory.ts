import { Heap } from 'heap-js';
import { hostKey } from '../../delivery/host-key';
import type { DeliveryRecord } from '../../model';
import {
  dueTime,
  type AttemptResult,
  type AttemptToRecord,
  type DeliveryFilter,
  type DeliveryStore,
  type HostFilter,
} from './port';

function isClaimable(delivery: DeliveryRecord, now: Date): boolean {
  if (delivery.status !== 'pending' || !delivery.nextAttemptAt) return false;
  return dueTime(delivery) <= now.getTime();
}

/**
 * A copy callers may change without touching the stored record: attempts are never changed in
 * place (only appended), so a new array of the same attempts is enough, and far cheaper than a
 * deep clone on the delivery path.
 */
function copy(delivery: DeliveryRecord): DeliveryRecord {
  return { ...delivery, attempts: [...delivery.attempts] };
}

function dedupeKeyOf(delivery: DeliveryRecord): string {
  return `${delivery.organization}\u0000${delivery.dedupeKey}`;
}

interface ScheduleEntry {
  dueAt: number;
  id: string;
}

/**
 * Deliveries one process keeps at most in memory (every webhook and callback delivery adds one).
 * Beyond it the deliveries that finished longest ago go first; pending ones are never dropped.
 * A dropped delivery leaves the delivery log, and an event redelivered after it was dropped
 * would be delivered again (same event id; receivers dedupe by webhook-id).
 */
export const IN_MEMORY_DELIVERIES = 50_000;

/**
 * In-memory store. The schedule is a heap by due time with an entry per scheduling change; a
 * popped entry is checked against the delivery, so stale entries (rescheduled or finished
 * deliveries) are dropped as they surface, and a sweep never walks the log. Bounded
 * (IN_MEMORY_DELIVERIES): finished deliveries are dropped oldest-finished first.
 */
export class InMemoryDeliveryStore implements DeliveryStore {
  /** Insertion order doubles as creation order (newest last). */
  private readonly deliveries = new Map<string, DeliveryRecord>();
  private readonly byDedupeKey = new Map<string, string>();
  private readonly schedule = new Heap<ScheduleEntry>((a, b) => a.dueAt - b.dueAt);
  private readonly pending = new Set<string>();
  /** Finished deliveries in the order they finished: the first to go when the store is full. */
  private readonly finished = new Set<string>();

  constructor(private readonly maxDeliveries = IN_MEMORY_DELIVERIES) {}

  async createIfAbsent(
    delivery: DeliveryRecord,
  ): Promise<{ delivery: DeliveryRecord; created: boolean }> {
    const key = dedupeKeyOf(delivery);
    const existingId = this.byDedupeKey.get(key);
    if (existingId) return { delivery: copy(this.deliveries.get(existingId)!), created: false };
    this.byDedupeKey.set(key, delivery.id);
    const stored = copy(delivery);
    this.deliveries.set(delivery.id, stored);
    this.track(stored);
    this.dropFinishedBeyondBound();
    return { delivery: copy(delivery), created: true };
  }

  private dropFinishedBeyondBound(): void {
    for (const id of this.finished) {
      if (this.deliveries.size <= this.maxDeliveries) return;
      this.finished.delete(id);
      const delivery = this.deliveries.get(id);
      if (!delivery || delivery.status === 'pending') continue;
      this.deliveries.delete(id);
      if (this.byDedupeKey.get(dedupeKeyOf(delivery)) === id)
        this.byDedupeKey.delete(dedupeKeyOf(delivery));
    }
  }

  async createMany(deliveries: DeliveryRecord[]): Promise<DeliveryRecord[]> {
    const created: DeliveryRecord[] = [];
    for (const delivery of deliveries) {
      const result = await this.createIfAbsent(delivery);
      if (result.created) created.push(result.delivery);
    }
    return created;
  }

  async get(organization: string, id: string): Promise<DeliveryRecord | undefined> {
    const found = this.deliveries.get(id);
    return found && found.organization === organization ? copy(found) : undefined;
  }

  async list(organization: string, options: DeliveryFilter): Promise<DeliveryRecord[]> {
    const matches = [...this.deliveries.values()].filter(
      (d) =>
        d.organization === organization &&
        (!options.webhookId || d.webhookId === options.webhookId) &&
        (!options.eventId || d.eventId === options.eventId) &&
        (!options.status || d.status === options.status) &&
        (!options.event || d.event === options.event),
    );
    return matches.reverse().slice(0, options.limit).map(copy);
  }

  async claimDue(
    now: Date,
    limit: number,
    leaseUntil: Date,
    skip?: { host: HostFilter; until: Date },
  ): Promise<DeliveryRecord[]> {
    const claimed: DeliveryRecord[] = [];
    const postponed: DeliveryRecord[] = [];
    // As in Mongo, `limit` bounds the due entries looked at, postponed ones included.
    while (
      claimed.length + postponed.length < limit &&
      (this.schedule.peek()?.dueAt ?? Infinity) <= now.getTime()
    ) {
      const delivery = this.deliveries.get(this.schedule.pop()!.id);
      if (!delivery || !isClaimable(delivery, now)) continue;
      if (skip && !skip.host(hostKey(delivery.url))) {
        postponed.push(delivery);
        continue;
      }
      delivery.leaseUntil = leaseUntil.toISOString();
      this.track(delivery);
      claimed.push(copy(delivery));
    }
    for (const delivery of postponed) {
      delivery.nextAttemptAt = skip!.until.toISOString();
      this.track(delivery);
    }
    return claimed;
  }

  async claim(
    organization: string,
    id: string,
    now: Date,
    leaseUntil: Date,
  ): Promise<DeliveryRecord | undefined> {
    const delivery = this.deliveries.get(id);
    if (!delivery || delivery.organization !== organization || !isClaimable(delivery, now))
      return undefined;
    delivery.leaseUntil = leaseUntil.toISOString();
    this.track(delivery);
    return copy(delivery);
  }

  async release(organization: string, id: string, dueAt?: Date): Promise<void> {
    const delivery = this.deliveries.get(id);
    if (!delivery || delivery.organization !== organization) return;
    delete delivery.leaseUntil;
    if (dueAt && delivery.status === 'pending') delivery.nextAttemptAt = dueAt.toISOString();
    this.track(delivery);
  }

  async recordAttempt(
    organization: string,
    id: string,
    result: AttemptResult,
  ): Promise<DeliveryRecord | undefined> {
    const delivery = this.deliveries.get(id);
    if (!delivery || delivery.organization !== organization) return undefined;
    delivery.attempts.push({ ...result.attempt });
    delivery.status = result.status;
    delivery.url = result.url;
    delivery.nextAttemptAt = result.nextAttemptAt;
    delete delivery.leaseUntil;
    this.track(delivery);
    return copy(delivery);
  }

  async recordAttempts(attempts: AttemptToRecord[]): Promise<void> {
    for (const { organization, id, result } of attempts)
      await this.recordAttempt(organization, id, result);
  }

  async countPending(): Promise<number> {
    return this.pending.size;
  }

  /** Keeps the pending set, the schedule and the finished order in step with a delivery that changed. */
  private track(delivery: DeliveryRecord): void {
    if (delivery.status !== 'pending') {
      this.pending.delete(delivery.id);
      this.finished.add(delivery.id);
      return;
    }
    if (!delivery.nextAttemptAt) {
      this.pending.delete(delivery.id);
      return;
    }
    this.pending.add(delivery.id);
    this.schedule.push({ dueAt: dueTime(delivery), id: delivery.id });
  }
}
