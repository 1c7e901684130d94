import { AppError } from '../errors/app-error';
import type { Logger } from '../logging/logger';
import type { EventPublisher } from '../adapters/outbox';
import { createEvent } from './envelope';
import type { UsageRoute } from './schemas';

/** What one call spent: published as usage.recorded, summed by the ledger. */
export interface UsageFact {
  organization: string;
  keyId: string;
  requestId: string;
  route: UsageRoute;
  /** assistant.chat: the agent that replied. */
  agent?: string;
  /** The key's team and the end user (attributionOf the call): usage is reported by both. */
  teamId?: string;
  endUser?: string;
  model: string;
  tokensInput: number;
  tokensOutput: number;
  cost: number;
  /** succeeded, or failed after tokens were spent upstream. */
  outcome: 'succeeded' | 'failed';
  /**
   * The event's id: deterministic per call (usageEventId, or derived from the request id) so that a
   * call run twice is counted once by the ledger; a fresh id when absent.
   */
  eventId?: string;
}

/**
 * The one way a service publishes usage: usage.recorded through the service's outbox publisher.
 * A bus outage does not fail the call (the outbox keeps the event and relays it later); a call
 * fails only when its usage can be neither published nor stored, rather than go unbilled.
 */
export class UsagePublisher {
  constructor(
    private readonly bus: EventPublisher,
    /** The publishing service: the events' source. */
    private readonly source: string,
    private readonly logger: Logger,
  ) {}

  async record(fact: UsageFact): Promise<void> {
    const { organization, eventId, ...usage } = fact;
    const event = createEvent('usage.recorded', {
      id: eventId,
      source: this.source,
      organization,
      data: usage,
    });
    try {
      await this.bus.publish(event);
    } catch (error) {
      this.logger.error(
        { err: error, organization, eventId: event.id, usage },
        'usage could not be recorded',
      );
      const refused = new AppError(
        'unavailable',
        'usage could not be recorded; the request was not completed, try again',
        [],
        1,
      );
      // Kept so that an outage (bus and outbox both unreachable) is told from a defect (outageOf).
      refused.cause = error;
      throw refused;
    }
  }

  /**
   * Records without holding up the caller's answer: the outbox takes the event even while the bus
   * is down, and one that can be neither published nor stored is logged as an error with its
   * counts by record(), never dropped silently.
   */
  recordInBackground(fact: UsageFact): void {
    this.record(fact).catch(() => undefined);
  }
}
