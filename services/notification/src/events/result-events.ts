import type { EventEnvelope, RequestResult } from '@switchyard/shared';
import type { NewDelivery } from '../delivery/engine';
import { CALLBACK_TARGET } from '../model';
import type { EventFanOut } from './fan-out';

type ResultEvent = EventEnvelope<'request.completed'> | EventEnvelope<'request.failed'>;

/** The result callback body of 2.7 (plus error on failure, with an empty result). */
export function callbackBody(event: ResultEvent): Record<string, unknown> {
  const data: RequestResult = event.data;
  const failed = event.type === 'request.failed';
  const body: Record<string, unknown> = {
    requestId: data.requestId,
    result: failed ? '' : data.result,
    model: data.model,
    usage: { totalTokens: data.usage.totalTokens },
  };
  if (failed || data.error)
    body.error = data.error ?? { code: 'internal', message: 'request failed' };
  return body;
}

/** request.completed / request.failed: the caller's webhookUrl, then request_completed webhooks. */
export async function handleResultEvent(event: ResultEvent, fanOut: EventFanOut): Promise<void> {
  const body = callbackBody(event);
  const callback: NewDelivery[] = event.data.webhookUrl
    ? [
        {
          organization: event.organization,
          webhookId: CALLBACK_TARGET,
          eventId: event.id,
          event: 'request_completed',
          occurredAt: event.time,
          url: event.data.webhookUrl,
          payload: JSON.stringify(body),
        },
      ]
    : [];
  await fanOut.send(
    event.organization,
    'request_completed',
    event.id,
    event.time,
    { event: 'request_completed', ...body, id: event.id, occurredAt: event.time },
    callback,
  );
}
