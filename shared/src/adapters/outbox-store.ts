import type { AnyEvent } from '../events/envelope';

/**
 * Events accepted by a service but not yet acknowledged by the bus. Keyed by event id, so storing
 * the same event twice keeps one entry; read back oldest first.
 */
export interface OutboxStore {
  /** Stores the event unless its id is already stored (idempotent). */
  add(event: AnyEvent): Promise<void>;
  /** Up to limit stored events, oldest first (the order they were added). */
  oldest(limit: number): Promise<AnyEvent[]>;
  /** Forgets an event the bus has acknowledged (no-op when absent). */
  remove(eventId: string): Promise<void>;
  count(): Promise<number>;
}

let lastSequence = 0;

/**
 * A strictly increasing number per process, close to the wall clock (microseconds), so entries
 * added by one process read back in the order they were added, and entries of a restarted
 * process sort after the older ones.
 */
export function nextOutboxSequence(): number {
  lastSequence = Math.max(lastSequence + 1, Date.now() * 1000);
  return lastSequence;
}

/**
 * In-process outbox: survives a bus outage but not a restart (embedded mode and tests; services
 * use the Mongo outbox when MONGODB_URI is set).
 */
export class InMemoryOutboxStore implements OutboxStore {
  private readonly entries = new Map<string, { sequence: number; event: AnyEvent }>();

  async add(event: AnyEvent): Promise<void> {
    if (this.entries.has(event.id)) return;
    this.entries.set(event.id, { sequence: nextOutboxSequence(), event: structuredClone(event) });
  }

  async oldest(limit: number): Promise<AnyEvent[]> {
    return [...this.entries.values()]
      .sort((a, b) => a.sequence - b.sequence)
      .slice(0, limit)
      .map((entry) => structuredClone(entry.event));
  }

  async remove(eventId: string): Promise<void> {
    this.entries.delete(eventId);
  }

  async count(): Promise<number> {
    return this.entries.size;
  }
}
