import {
  context,
  createContextKey,
  INVALID_SPAN_CONTEXT,
  isSpanContextValid,
  propagation,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
  type SpanKind,
  type Tracer,
} from '@opentelemetry/api';
import type { SpanExporter, TracerProvider } from '@opentelemetry/sdk-trace';
import { readTracingSettings } from './settings';

/**
 * The SDK, the OTLP exporter (with protobufjs) and the context manager are loaded only when
 * tracing is turned on: a process with tracing off never loads them.
 */
function loadSdk() {
  /* eslint-disable @typescript-eslint/no-require-imports */
  return {
    ...(require('@opentelemetry/sdk-trace') as typeof import('@opentelemetry/sdk-trace')),
    ...(require('@opentelemetry/resources') as typeof import('@opentelemetry/resources')),
    ...(require('@opentelemetry/core') as typeof import('@opentelemetry/core')),
    ...(require('@opentelemetry/context-async-hooks') as typeof import('@opentelemetry/context-async-hooks')),
    loadOtlpExporter: () =>
      (
        require('@opentelemetry/exporter-trace-otlp-proto') as typeof import('@opentelemetry/exporter-trace-otlp-proto')
      ).OTLPTraceExporter,
  };
  /* eslint-enable @typescript-eslint/no-require-imports */
}

/** The service whose work the active context belongs to (embedded mode runs all of them in one process). */
const SERVICE_KEY = createContextKey('switchyard.service');
/** Handed to span callbacks while tracing is off: every call on it is a no-op. */
const NOOP_SPAN = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);

interface ActiveTracing {
  providers: TracerProvider[];
  /** One tracer per service name, each from a provider whose resource names that service. */
  tracers: Map<string, Tracer>;
  /** For spans whose service is unknown: the first service started. */
  fallback: Tracer;
}

let active: ActiveTracing | undefined;

/** Whether startTracing turned tracing on; while false every helper here does (almost) nothing. */
export function tracingEnabled(): boolean {
  return active !== undefined;
}

export interface StartTracingOptions {
  env?: NodeJS.ProcessEnv;
  /** Spans go here (tests: InMemorySpanExporter), exported as each ends; tracing is on without an endpoint. */
  exporter?: SpanExporter;
}

/**
 * Turns tracing on for this process when OTEL_EXPORTER_OTLP_ENDPOINT is set (or an exporter is
 * given): W3C trace context, async context tracking, and one tracer provider per service name so
 * spans carry the right service.name even when one process runs several services (embedded mode).
 * With no endpoint nothing is started and it returns false. Call it before creating gRPC clients.
 */
export function startTracing(
  services: string | readonly string[],
  options: StartTracingOptions = {},
): boolean {
  if (active) throw new Error('tracing is already started');
  const names = typeof services === 'string' ? [services] : [...services];
  const settings = readTracingSettings(options.env);
  if ((!options.exporter && !settings.otlpEndpoint) || names.length === 0) return false;
  const sdk = loadSdk();
  const exporter =
    options.exporter ?? new (sdk.loadOtlpExporter())({ url: `${settings.otlpEndpoint}/v1/traces` });
  // One processor (one export queue and connection) shared by the services' providers.
  const processor = options.exporter
    ? new sdk.SimpleSpanProcessor({ exporter })
    : new sdk.BatchSpanProcessor({ exporter });
  const providers = names.map(
    (name) =>
      new sdk.TracerProvider({
        resource: sdk.resourceFromAttributes({
          'service.name': name,
          'service.namespace': 'switchyard',
        }),
        spanProcessors: [processor],
      }),
  );
  const tracers = new Map(names.map((name, i) => [name, providers[i]!.getTracer('switchyard')]));
  context.setGlobalContextManager(new sdk.AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new sdk.W3CTraceContextPropagator());
  active = { providers, tracers, fallback: tracers.get(names[0]!)! };
  return true;
}

/** Exports what is buffered and turns tracing off again (process stop, tests). */
export async function stopTracing(): Promise<void> {
  const current = active;
  if (!current) return;
  active = undefined;
  await Promise.all(current.providers.map((provider) => provider.shutdown()));
  context.disable();
  propagation.disable();
}

export interface SpanSpec {
  kind?: SpanKind;
  attributes?: Attributes;
  /** The service doing the work; default: the one of the parent context. */
  service?: string;
  /** Default: the active context. */
  parent?: Context;
}

export interface StartedSpan {
  span: Span;
  /** The parent context with this span (and its service) in it. */
  context: Context;
}

/** Starts a span that the caller ends; undefined while tracing is off. */
export function startSpan(name: string, spec: SpanSpec = {}): StartedSpan | undefined {
  const tracing = active;
  if (!tracing) return undefined;
  const parent = spec.parent ?? context.active();
  const service = spec.service ?? (parent.getValue(SERVICE_KEY) as string | undefined);
  const tracer = (service !== undefined && tracing.tracers.get(service)) || tracing.fallback;
  const span = tracer.startSpan(name, { kind: spec.kind, attributes: spec.attributes }, parent);
  const withSpan = trace.setSpan(parent, span);
  return {
    span,
    context: service === undefined ? withSpan : withSpan.setValue(SERVICE_KEY, service),
  };
}

/**
 * Runs fn in a new span, which ends when fn settles and is marked failed when fn throws.
 * While tracing is off fn runs at once with a no-op span.
 */
export function withSpan<T>(
  name: string,
  spec: SpanSpec,
  fn: (span: Span) => Promise<T> | T,
): Promise<T> {
  const started = startSpan(name, spec);
  if (!started) {
    try {
      return Promise.resolve(fn(NOOP_SPAN));
    } catch (error) {
      return Promise.reject(error);
    }
  }
  return runInSpan(started, fn);
}

async function runInSpan<T>(started: StartedSpan, fn: (span: Span) => Promise<T> | T): Promise<T> {
  try {
    return await context.with(started.context, fn, undefined, started.span);
  } catch (error) {
    markFailed(started.span, error);
    throw error;
  } finally {
    started.span.end();
  }
}

/**
 * Error status, and error.type: the error's code (AppError) or its name. Only coded errors' messages
 * (the ones callers are shown) go into the span; others may name infrastructure.
 */
export function markFailed(span: Span, error: unknown): void {
  const code = (error as { code?: unknown } | null)?.code;
  const coded = typeof code === 'string';
  span.setAttribute('error.type', coded ? code : error instanceof Error ? error.name : 'error');
  span.setStatus({
    code: SpanStatusCode.ERROR,
    message: coded && error instanceof Error ? error.message : undefined,
  });
}

/** Runs fn later in the trace context active now (work queued in one request and run from another's callback). */
export function bindToActiveContext<F extends (...args: never[]) => unknown>(fn: F): F {
  return active ? context.bind(context.active(), fn) : fn;
}

const NO_FIELDS: Record<string, string> = Object.freeze({}) as Record<string, string>;

/** trace_id and span_id of the active span, for log lines (empty while tracing is off). */
export function traceLogFields(): Record<string, string> {
  if (!active) return NO_FIELDS;
  const spanContext = trace.getSpanContext(context.active());
  if (!spanContext || !isSpanContextValid(spanContext)) return NO_FIELDS;
  return { trace_id: spanContext.traceId, span_id: spanContext.spanId };
}

/** Whether fields came from traceLogFields with nothing in them (pino then keeps its own object). */
export function isEmptyLogFields(fields: object): boolean {
  return fields === NO_FIELDS;
}
