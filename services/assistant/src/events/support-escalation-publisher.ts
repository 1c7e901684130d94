import {
  AppError,
  createEvent,
  type EventPublisher,
  type Logger,
  type SupportEscalated,
} from '@switchyard/shared';
import { SOURCE } from './source';

/** support.escalated through the outbox: delayed by a bus outage, never dropped. */
export class SupportEscalationPublisher {
  constructor(
    private readonly bus: EventPublisher,
    private readonly logger: Logger,
  ) {}

  async publish(organization: string, escalation: SupportEscalated): Promise<void> {
    const event = createEvent('support.escalated', {
      source: SOURCE,
      organization,
      data: escalation,
    });
    try {
      await this.bus.publish(event);
    } catch (error) {
      this.logger.error(
        { err: error, eventId: event.id, sessionId: escalation.sessionId },
        'support.escalated could not be published',
      );
      throw new AppError(
        'unavailable',
        'the conversation could not be handed to the support team; please retry',
        [],
        1,
      );
    }
  }
}
