import { SpanKind, type Context, type Span } from '@opentelemetry/api';
import type { AnyEvent } from '../events/envelope';
import { currentTraceCarrier, type TraceCarrier } from './propagation';
import { tracingEnabled, withSpan } from './tracing';

/** "kafka", or "in_memory" for the embedded bus. */
export type MessagingSystem = 'kafka' | 'in_memory';

/**
 * A producer span around one publish; send gets the carrier to put into the message (undefined
 * while tracing is off). The span belongs to the event's source service.
 */
export function tracePublish(system: MessagingSystem, topic: string, event: AnyEvent, send: (carrier: TraceCarrier | undefined) => Promise<void>): Promise<void> {
  if (!tracingEnabled()) return send(undefined);
  return withSpan(
    `send ${topic}`,
    {
      kind: SpanKind.PRODUCER,
      service: event.source,
      attributes: {
        'messaging.system': system,
        'messaging.operation.type': 'send',
        'messaging.destination.name': topic,
        'messaging.message.id': event.id,
        'switchyard.event.type': event.type,
      },
    },
    () => send(currentTraceCarrier()),
  );
}

/**
 * A consumer span around handling one message (all its attempts), child of the producer's span
 * (parent: the context extracted from the message). Consumer groups are named after their service
 * ("notification-usage" is notification's), which the span is attributed to.
 */
export function traceConsume<T>(system: MessagingSystem, topic: string, group: string, parent: Context, handle: (span: Span | undefined) => Promise<T>): Promise<T> {
  if (!tracingEnabled()) return handle(undefined);
  return withSpan(
    `process ${topic}`,
    {
      kind: SpanKind.CONSUMER,
      service: group.split('-')[0],
      parent,
      attributes: {
        'messaging.system': system,
        'messaging.operation.type': 'process',
        'messaging.destination.name': topic,
        'messaging.consumer.group.name': group,
      },
    },
    handle,
  );
}

/** Labels a consumer span with the message it handled (once decoded). */
export function describeConsumed(span: Span | undefined, event: AnyEvent): void {
  span?.setAttributes({ 'messaging.message.id': event.id, 'switchyard.event.type': event.type });
}
