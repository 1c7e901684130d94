import type { Logger } from 'pino';
import type { EventPublisher } from '../adapters/outbox';
import { AppError } from '../errors/app-error';
import { createEvent } from './envelope';

/**
 * Announces data a service stored (data.updated: dataset and count), for the organization's
 * data_updated webhooks. Given an outbox publisher, a bus outage delays the event rather than
 * dropping it; the call fails (unavailable, retry) only when the event can be neither published
 * nor kept, so nothing goes silently unannounced.
 */
export class DataUpdatedPublisher<D extends string = string> {
  constructor(
    private readonly bus: EventPublisher,
    private readonly logger: Logger,
    /** The announcing service (the envelope's source). */
    private readonly source: string,
  ) {}

  async publish(organization: string, dataset: D, count: number): Promise<void> {
    const event = createEvent('data.updated', {
      source: this.source,
      organization,
      data: { dataset, count },
    });
    try {
      await this.bus.publish(event);
    } catch (error) {
      this.logger.error(
        { err: error, eventId: event.id, dataset },
        'data.updated could not be published',
      );
      throw new AppError(
        'unavailable',
        `the ${dataset} data were stored but the update could not be announced; retry the call`,
        [],
        1,
      );
    }
  }
}
