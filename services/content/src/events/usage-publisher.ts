import {
  AppError,
  createEvent,
  type EventPublisher,
  type Logger,
  type UsageRecorded,
} from '@switchyard/shared';

export const ENDPOINTS = {
  generate: '/api/v2/ai/content/generate',
  transform: '/api/v2/ai/content/transform',
  /** Knowledge documents and questions turned into vectors for the assistants' retrieval. */
  embeddings: '/api/v2/knowledge (embeddings)',
  chatCompletions: '/v1/chat/completions',
  openAiEmbeddings: '/v1/embeddings',
} as const;

export const SOURCE = 'content';

/**
 * Publishes usage.recorded through the outbox publisher: a bus outage does not fail the call (the
 * event is stored and relayed later); only when the event can be neither published nor stored
 * does the call fail, rather than go unbilled.
 */
export class UsagePublisher {
  constructor(
    private readonly bus: EventPublisher,
    /** Where a usage event recorded in the background that could not be kept is reported. */
    private readonly logger?: Logger,
  ) {}

  /**
   * Records without holding up the caller's answer: the outbox takes the event even while the bus
   * is down, and one that can be neither published nor stored is logged as an error with its
   * counts (never dropped silently). Without a logger it is recorded in line.
   */
  async recordInBackground(
    organization: string,
    usage: UsageRecorded,
    eventId?: string,
  ): Promise<void> {
    const logger = this.logger;
    if (!logger) return this.record(organization, usage, eventId);
    void this.record(organization, usage, eventId).catch((error: unknown) =>
      logger.error(
        { err: error, organization, requestId: usage.requestId, usage },
        'usage could not be recorded',
      ),
    );
  }

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
