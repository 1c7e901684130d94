import type { AnyEvent } from '../events/envelope';
import type { TraceCarrier } from '../tracing/propagation';

/** A stored event with the trace context it was published in, so the later relay continues that trace. */
export interface OutboxEntry {
  event: AnyEvent;
  trace?: TraceCarrier;
}

/**
 * Events accepted by a service but not yet acknowledged by the bus. Keyed by event id, so storing
 * the same event twice keeps one entry; read back oldest first.
 */
export interface OutboxStore {
  /** Stores the event (and its trace context) unless its id is already stored (idempotent). */
  add(event: AnyEvent, trace?: TraceCarrier): Promise<void>;
  /** Up to limit stored entries, oldest first (the order they were added). */
  oldest(limit: number): Promise<OutboxEntry[]>;
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
  private readonly entries = new Map<string, { sequence: number; entry: OutboxEntry }>();

  async add(event: AnyEvent, trace?: TraceCarrier): Promise<void> {
    if (this.entries.has(event.id)) return;
    this.entries.set(event.id, {
      sequence: nextOutboxSequence(),
      entry: structuredClone(trace ? { event, trace } : { event }),
    });
  }

  async oldest(limit: number): Promise<OutboxEntry[]> {
    return [...this.entries.values()]
      .sort((a, b) => a.sequence - b.sequence)
      .slice(0, limit)
      .map(({ entry }) => structuredClone(entry));
  }

  async remove(eventId: string): Promise<void> {
    this.entries.delete(eventId);
  }

  async count(): Promise<number> {
    return this.entries.size;
  }
}
