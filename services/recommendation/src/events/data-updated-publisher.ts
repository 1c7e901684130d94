import { AppError, createEvent, type EventBus, type Logger } from '@switchyard/shared';

export type Dataset = 'catalog_items' | 'interactions';

/** Announces stored data (data.updated on the data topic; the notification service fans it out). */
export class DataUpdatedPublisher {
  constructor(
    private readonly bus: EventBus,
    private readonly logger: Logger,
  ) {}

  /** Throws AppError(unavailable) when the bus does not take the event, so nothing goes silently unannounced. */
  async publish(organization: string, dataset: Dataset, count: number): Promise<void> {
    const event = createEvent('data.updated', { source: 'recommendation', organization, data: { dataset, count } });
    try {
      await this.bus.publish(event);
    } catch (error) {
      this.logger.error({ err: error, eventId: event.id, dataset }, 'data.updated could not be published');
      throw new AppError('unavailable', `the ${dataset} were stored but the update could not be announced; retry the call`);
    }
  }
}
