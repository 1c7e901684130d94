import type { Logger } from 'pino';
import { validateEvent, type AnyEvent } from '../events/envelope';
import type { OutboxStore } from './outbox-store';
import { outboxStoredTotal, trackOutbox } from './outbox-metrics';
import { context } from '@opentelemetry/api';
import { contextFromCarrier, currentTraceCarrier } from '../tracing/propagation';
import { tracingEnabled } from '../tracing/tracing';

/** What a service needs to emit events: the publishing half of EventBus. */
export interface EventPublisher {
  publish(event: AnyEvent): Promise<void>;
}

export interface OutboxPublisherOptions {
  bus: EventPublisher;
  store: OutboxStore;
  logger: Logger;
  /** How long a direct publish may take before the event goes to the outbox (ms). */
  publishTimeoutMs?: number;
  /** Relay period while the bus works (OUTBOX_RELAY_INTERVAL_MS, ms). */
  relayIntervalMs?: number;
  /** Upper bound of the exponential backoff after failed relays (ms). */
  maxBackoffMs?: number;
  /** Events relayed per store read. */
  batchSize?: number;
}

export const DEFAULT_OUTBOX_RELAY_INTERVAL_MS = 1000;
export const DEFAULT_OUTBOX_PUBLISH_TIMEOUT_MS = 1000;

/**
 * Publishes through the bus, falling back to a durable outbox when the bus fails or is slow, so
 * a caller whose work is done (tokens spent) is never failed by a bus outage. A relay loop
 * republishes stored events oldest first and deletes each after the bus acknowledged it.
 *
 * Order: while the outbox holds events, new events are stored behind them instead of overtaking.
 * Duplicates are possible (a timed-out publish that still lands, two replicas relaying the same
 * outbox) but always carry the same event id, which consumers deduplicate.
 * publish() rejects only when both the bus and the outbox store fail.
 */
export class OutboxPublisher implements EventPublisher {
  private readonly publishTimeoutMs: number;
  private readonly relayIntervalMs: number;
  private readonly maxBackoffMs: number;
  private readonly batchSize: number;
  /** True while the outbox may hold events: new events must queue behind them. */
  private backlog = true;
  /** Bumped on every store write, so a relay that found the store empty knows it is still empty. */
  private generation = 0;
  private failures = 0;
  private timer?: NodeJS.Timeout;
  private relaying?: Promise<void>;
  private running = false;
  private untrack?: () => void;

  constructor(private readonly options: OutboxPublisherOptions) {
    this.publishTimeoutMs = options.publishTimeoutMs ?? DEFAULT_OUTBOX_PUBLISH_TIMEOUT_MS;
    this.relayIntervalMs = options.relayIntervalMs ?? DEFAULT_OUTBOX_RELAY_INTERVAL_MS;
    this.maxBackoffMs = options.maxBackoffMs ?? Math.max(30_000, this.relayIntervalMs);
    this.batchSize = options.batchSize ?? 100;
  }

  /**
   * Relays what a previous process left in the outbox, in the background (a service serves at once
   * whatever the backlog; new events queue behind it), then keeps relaying on a timer.
   */
  async start(): Promise<void> {
    this.running = true;
    this.untrack = trackOutbox(this.options.store);
    void this.relay().finally(() => this.schedule());
  }

  /** Stops the loop and flushes what the bus accepts now; the rest stays stored for the next start. */
  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.relay();
    this.untrack?.();
  }

  async publish(event: AnyEvent): Promise<void> {
    // An invalid event would never be accepted: refuse it now rather than store a poison entry.
    const valid = validateEvent(event);
    if (!this.backlog) {
      try {
        await this.publishWithTimeout(valid);
        return;
      } catch (error) {
        this.options.logger.warn(
          { eventId: valid.id, type: valid.type, error: errorText(error) },
          'bus publish failed; event kept in the outbox',
        );
      }
    }
    await this.store(valid);
  }

  /** Events waiting in the outbox (for readiness and tests). */
  pending(): Promise<number> {
    return this.options.store.count();
  }

  /** One relay pass now (also what the timer runs); concurrent callers share the pass. */
  relay(): Promise<void> {
    this.relaying ??= this.relayPass().finally(() => {
      this.relaying = undefined;
    });
    return this.relaying;
  }

  private async store(event: AnyEvent): Promise<void> {
    this.backlog = true;
    this.generation++;
    // The publisher's trace context is kept with the event: the relay publishes in it later.
    await this.options.store.add(event, currentTraceCarrier());
    outboxStoredTotal.inc();
  }

  private async relayPass(): Promise<void> {
    try {
      for (;;) {
        const generation = this.generation;
        const entries = await this.options.store.oldest(this.batchSize);
        if (entries.length === 0) {
          if (generation === this.generation) this.backlog = false;
          break;
        }
        for (const { event, trace } of entries) {
          await (tracingEnabled()
            ? context.with(contextFromCarrier(trace), () => this.publishWithTimeout(event))
            : this.publishWithTimeout(event));
          await this.options.store.remove(event.id);
        }
      }
      this.failures = 0;
    } catch (error) {
      // Stop at the first failure so later events never overtake an earlier one.
      this.failures++;
      this.options.logger.warn(
        { error: errorText(error), failures: this.failures },
        'outbox relay failed; will retry',
      );
    }
  }

  private schedule(): void {
    if (!this.running) return;
    const delay = Math.min(this.relayIntervalMs * 2 ** this.failures, this.maxBackoffMs);
    this.timer = setTimeout(() => {
      void this.relay().finally(() => this.schedule());
    }, delay);
    this.timer.unref?.();
  }

  private publishWithTimeout(event: AnyEvent): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`bus publish timed out after ${this.publishTimeoutMs} ms`)),
        this.publishTimeoutMs,
      );
      this.options.bus.publish(event).then(
        () => {
          clearTimeout(timer);
          resolve();
        },
        (error: unknown) => {
          clearTimeout(timer);
          reject(error instanceof Error ? error : new Error(String(error)));
        },
      );
    });
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
