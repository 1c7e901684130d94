import {
  createEvent,
  resultEventId,
  type EventPublisher,
  type RequestResult,
} from '@switchyard/shared';
import { SOURCE } from './source';

/**
 * Publishes the outcome of an asynchronous request on the results topic, from which the
 * notification service delivers it. The event id derives from the request id so that a
 * re-run after a crash produces the same id and consumers drop the duplicate.
 */
export class ResultPublisher {
  constructor(private readonly bus: EventPublisher) {}

  async completed(organization: string, result: RequestResult): Promise<void> {
    await this.bus.publish(
      createEvent('request.completed', {
        source: SOURCE,
        organization,
        data: result,
        id: resultEventId(result.requestId),
      }),
    );
  }

  async failed(organization: string, result: RequestResult): Promise<void> {
    await this.bus.publish(
      createEvent('request.failed', {
        source: SOURCE,
        organization,
        data: result,
        id: resultEventId(result.requestId),
      }),
    );
  }
}
