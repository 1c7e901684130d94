import { AppError, createEvent, type EventPublisher, type UsageRecorded } from '@switchyard/shared';

export const ENDPOINTS = {
  generate: '/api/v2/ai/content/generate',
  transform: '/api/v2/ai/content/transform',
  /** Knowledge documents and questions turned into vectors for the assistants' retrieval. */
  embeddings: '/api/v2/knowledge (embeddings)',
} as const;

export const SOURCE = 'content';

/**
 * Publishes usage.recorded through the outbox publisher: a bus outage does not fail the call (the
 * event is stored and relayed later); only when the event can be neither published nor stored
 * does the call fail, rather than go unbilled.
 */
export class UsagePublisher {
  constructor(private readonly bus: EventPublisher) {}

  async record(organization: string, usage: UsageRecorded, eventId?: string): Promise<void> {
    try {
      await this.bus.publish(
        createEvent('usage.recorded', { source: SOURCE, organization, data: usage, id: eventId }),
      );
    } catch {
      throw new AppError(
        'unavailable',
        'usage could not be recorded; the request was not completed, try again',
        [],
        1,
      );
    }
  }
}
