import {
  context,
  propagation,
  ROOT_CONTEXT,
  type Context,
  type TextMapGetter,
  type TextMapSetter,
} from '@opentelemetry/api';
import type { Metadata } from '@grpc/grpc-js';
import type { IHeaders } from 'kafkajs';
import { tracingEnabled } from './tracing';

/** W3C trace context as strings (traceparent, and tracestate when present), stored or sent with work. */
export type TraceCarrier = Record<string, string>;

/** The active trace context as a carrier; undefined while tracing is off or no span is active. */
export function currentTraceCarrier(): TraceCarrier | undefined {
  if (!tracingEnabled()) return undefined;
  const carrier: TraceCarrier = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent ? carrier : undefined;
}

/** The context a carrier describes (the root context when there is none or it is invalid). */
export function contextFromCarrier<C>(carrier: C | undefined, getter?: TextMapGetter<C>): Context {
  if (carrier === undefined || !tracingEnabled()) return ROOT_CONTEXT;
  return propagation.extract(ROOT_CONTEXT, carrier, getter);
}

/** Writes the trace context of ctx (default: the active one) into a carrier; no-op while tracing is off. */
export function injectTraceContext<C>(
  carrier: C,
  setter?: TextMapSetter<C>,
  ctx: Context = context.active(),
): void {
  if (tracingEnabled()) propagation.inject(ctx, carrier, setter);
}

export const metadataSetter: TextMapSetter<Metadata> = {
  set: (metadata, key, value) => metadata.set(key, value),
};

export const metadataGetter: TextMapGetter<Metadata> = {
  keys: (metadata) => Object.keys(metadata.getMap()),
  get: (metadata, key) => {
    const values = metadata.get(key);
    return values.length === 0 ? undefined : values.map(String);
  },
};

/** Kafka header values arrive as Buffers. */
export const kafkaHeaderGetter: TextMapGetter<IHeaders> = {
  keys: (headers) => Object.keys(headers),
  get: (headers, key) => {
    const value = headers[key];
    if (value === undefined) return undefined;
    return Array.isArray(value) ? value.map(String) : String(value);
  },
};
