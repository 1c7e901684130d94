import { AppError, createEvent, type EventPublisher, type Logger } from '@switchyard/shared';

/**
 * Announces a written knowledge batch (data.updated, dataset = the collection) through the outbox:
 * a bus outage delays the event, never drops it; the call fails only when it can be neither
 * published nor stored.
 */
export class DataUpdatedPublisher {
  constructor(
    private readonly bus: EventPublisher,
    private readonly logger: Logger,
  ) {}

  async publish(organization: string, dataset: string, count: number): Promise<void> {
    const event = createEvent('data.updated', { source: 'assistant', organization, data: { dataset, count } });
    try {
      await this.bus.publish(event);
    } catch (error) {
      this.logger.error({ err: error, eventId: event.id, dataset }, 'data.updated could not be published');
      throw new AppError('unavailable', `the ${dataset} documents were stored but the update could not be announced; retry the call`, [], 1);
    }
  }
}
