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
export function tracePublish(
  system: MessagingSystem,
  topic: string,
  event: AnyEvent,
  send: (carrier: TraceCarrier | undefined) => Promise<void>,
): Promise<void> {
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
export function traceConsume<T>(
  system: MessagingSystem,
  topic: string,
  group: string,
  parent: Context,
  handle: (span: Span | undefined) => Promise<T>,
): Promise<T> {
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

/** Where a batch's events came from, for handling each in its own trace (see inConsumedTrace). */
interface ConsumedOrigin {
  system: MessagingSystem;
  topic: string;
  group: string;
  parent: Context;
}

const origins = new WeakMap<AnyEvent, ConsumedOrigin>();

/**
 * Called by a bus for each event of a batch it hands over: a batch handler works on many events
 * at once, so each event's trace is picked up where the handler handles it (inConsumedTrace).
 */
export function rememberConsumed(event: AnyEvent, origin: ConsumedOrigin): void {
  if (tracingEnabled()) origins.set(event, origin);
}

/**
 * Handles one event of a batch in a consumer span continuing its publisher's trace (plainly while
 * tracing is off, or for an event no bus handed over).
 */
export function inConsumedTrace<T>(event: AnyEvent, handle: () => Promise<T>): Promise<T> {
  const origin = origins.get(event);
  if (!origin) return handle();
  return traceConsume(origin.system, origin.topic, origin.group, origin.parent, (span) => {
    describeConsumed(span, event);
    return handle();
  });
}
