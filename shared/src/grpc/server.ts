import {
  Server,
  ServerCredentials,
  status as GrpcStatus,
  type ServerUnaryCall,
  type sendUnaryData,
  type ServiceDefinition,
  type UntypedServiceImplementation,
  type ServerWritableStream,
} from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { AppError } from '../errors/app-error';
import { dependencyHealth, dependencyHealthName, outageAppError } from '../resilience/dependencies';
import { contextFromMetadata, type CallContext } from './context';
import { toServiceError } from './errors';
import { startGrpcCallTimer } from '../metrics';
import { protos } from './protos';
import { traceServerCall } from '../tracing/grpc';
import { registerInProcessEndpoint, type InProcessEndpoint } from './in-process-server';
import { inProcessGrpcOn } from './in-process';
import type { HealthCheckRequest__Output, HealthCheckResponse } from '../generated/grpc/health/v1';

export type ServingStatus = 'SERVING' | 'NOT_SERVING';

/** grpc.health.v1 for one server: "" is the whole server, named entries are its services. */
export class HealthReporter {
  private readonly statuses = new Map<string, ServingStatus>();
  private readonly watchers = new Set<{
    service: string;
    stream: ServerWritableStream<unknown, HealthCheckResponse>;
  }>();

  set(service: string, status: ServingStatus): void {
    this.statuses.set(service, status);
    for (const watcher of this.watchers) {
      if (watcher.service === service) watcher.stream.write({ status });
    }
  }

  /** Stops reporting a name: Check answers NOT_FOUND for it again. */
  remove(service: string): void {
    this.statuses.delete(service);
  }

  /** Marks every known service, and the server, as status (NOT_SERVING on shutdown). */
  setAll(status: ServingStatus): void {
    for (const service of [...this.statuses.keys()]) this.set(service, status);
  }

  implementation(): UntypedServiceImplementation {
    return {
      Check: (
        call: ServerUnaryCall<HealthCheckRequest__Output, HealthCheckResponse>,
        callback: sendUnaryData<HealthCheckResponse>,
      ) => {
        const status = this.statuses.get(call.request.service);
        if (!status) {
          callback(
            toServiceError(new AppError('not_found', `unknown service ${call.request.service}`)),
          );
          return;
        }
        callback(null, { status });
      },
      Watch: (call: ServerWritableStream<HealthCheckRequest__Output, HealthCheckResponse>) => {
        const service = call.request.service;
        const watcher = {
          service,
          stream: call as ServerWritableStream<unknown, HealthCheckResponse>,
        };
        this.watchers.add(watcher);
        call.write({ status: this.statuses.get(service) ?? 'SERVICE_UNKNOWN' });
        call.on('cancelled', () => this.watchers.delete(watcher));
      },
    };
  }
}

/** The caller's deadline (epoch ms; undefined when none) and a signal aborted if it cancels. */
export interface CallControl {
  deadline?: number;
  signal: AbortSignal;
}

export type UnaryHandler<Req, Res> = (
  request: Req,
  context: CallContext,
  control: CallControl,
) => Promise<Res>;

/** What the adapters use of a grpc-js server call. */
interface ServerCallLike<Req> {
  request: Req;
  metadata: ServerUnaryCall<Req, unknown>['metadata'];
  getDeadline(): Date | number;
  getPath(): string;
  cancelled: boolean;
  once(event: 'cancelled', listener: () => void): unknown;
  removeListener(event: 'cancelled', listener: () => void): unknown;
}

/**
 * The call's control, and `settle` to call once the handler is done. grpc-js emits "cancelled"
 * when every call's stream closes, finished or not; aborting then would build a DOMException per
 * call and fire whatever the handler left listening on the signal.
 */
function controlOf(call: ServerCallLike<unknown>): { control: CallControl; settle: () => void } {
  const raw = call.getDeadline();
  const deadline = raw instanceof Date ? raw.getTime() : raw;
  const controller = new AbortController();
  const abort = () => controller.abort();
  call.once('cancelled', abort);
  return {
    control: {
      deadline: Number.isFinite(deadline) ? deadline : undefined,
      signal: controller.signal,
    },
    settle: () => call.removeListener('cancelled', abort),
  };
}

/** AppErrors keep their code and details; anything else is logged and becomes "internal". */
function asAppError(
  error: unknown,
  logger: Logger,
  context: CallContext,
  method: string,
): AppError {
  if (error instanceof AppError) return error;
  // A database that cannot be reached is an outage, not a defect: 503 with Retry-After.
  const outage = outageAppError(error);
  if (outage) {
    logger.warn({ err: error, requestId: context.requestId, method }, 'dependency unavailable');
    return outage;
  }
  logger.error({ err: error, requestId: context.requestId, method }, 'handler failed');
  return new AppError('internal', 'internal error');
}

/**
 * Records the call in grpcServerMetrics when it finishes; a call the caller cancelled (or whose
 * deadline passed) counts as CANCELLED whatever the handler made of it.
 */
function callRecorder(call: ServerCallLike<unknown>): (code: GrpcStatus) => void {
  const record = startGrpcCallTimer(call.getPath());
  return (code) => record(call.cancelled ? GrpcStatus.CANCELLED : code);
}

/**
 * Adapts a transport-free handler to grpc-js: reads the call context from metadata, hands over
 * the deadline and cancellation, and turns errors into statuses with trailers (toServiceError).
 */
export function unary<Req, Res>(logger: Logger, handler: UnaryHandler<Req, Res>) {
  return (call: ServerUnaryCall<Req, Res>, callback: sendUnaryData<Res>): void => {
    const context = contextFromMetadata(call.metadata);
    const record = callRecorder(call);
    const { control, settle } = controlOf(call);
    traceServerCall(call.getPath(), call.metadata, () => handler(call.request, context, control))
      .then(
        (response) => {
          settle();
          record(GrpcStatus.OK);
          callback(null, response);
        },
        (error: unknown) => {
          settle();
          const appError = asAppError(error, logger, context, call.getPath());
          record(appError.grpcStatus);
          callback(toServiceError(appError));
        },
      )
      .catch((error: unknown) => {
        // Answering threw (a response or trailer grpc-js refused): fail this call, never the process.
        logger.error(
          { err: error, requestId: context.requestId, method: call.getPath() },
          'answering the call failed',
        );
        callback({ code: GrpcStatus.INTERNAL, details: 'internal error' });
      });
  };
}

/** Where a streaming handler writes its messages; write waits while the transport is full. */
export interface StreamSink<Chunk> {
  write(chunk: Chunk): Promise<void>;
  control: CallControl;
}

export type StreamHandler<Req, Chunk> = (
  request: Req,
  context: CallContext,
  sink: StreamSink<Chunk>,
) => Promise<void>;

function sinkOf<Req, Chunk>(
  call: ServerWritableStream<Req, Chunk>,
  control: CallControl,
): StreamSink<Chunk> {
  return {
    control,
    write: async (chunk) => {
      if (call.cancelled) throw new AppError('unavailable', 'the caller cancelled the stream');
      if (call.write(chunk)) return;
      // Whichever comes first; both listeners go, or every wait would leave one behind.
      await new Promise<void>((resolve) => {
        const resume = () => {
          call.removeListener('drain', resume);
          call.removeListener('cancelled', resume);
          resolve();
        };
        call.on('drain', resume);
        call.on('cancelled', resume);
      });
    },
  };
}

/**
 * Adapts a transport-free server-streaming handler: the stream ends OK when it resolves, or with
 * the AppError's status and trailers when it throws.
 */
export function serverStream<Req, Chunk>(logger: Logger, handler: StreamHandler<Req, Chunk>) {
  return (call: ServerWritableStream<Req, Chunk>): void => {
    const context = contextFromMetadata(call.metadata);
    const record = callRecorder(call);
    const { control, settle } = controlOf(call);
    traceServerCall(call.getPath(), call.metadata, () =>
      handler(call.request, context, sinkOf(call, control)),
    )
      .then(
        () => {
          settle();
          record(GrpcStatus.OK);
          call.end();
        },
        (error: unknown) => {
          settle();
          const appError = asAppError(error, logger, context, call.getPath());
          record(appError.grpcStatus);
          call.emit('error', toServiceError(appError));
        },
      )
      .catch((error: unknown) => {
        logger.error(
          { err: error, requestId: context.requestId, method: call.getPath() },
          'ending the stream failed',
        );
        call.emit('error', { code: GrpcStatus.INTERNAL, details: 'internal error' });
      });
  };
}

function bind(server: Server, address: string): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    server.bindAsync(address, ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    );
  });
}

function whenIdle(endpoint: InProcessEndpoint | undefined, callback: () => void): void {
  if (endpoint) endpoint.whenIdle(callback);
  else callback();
}

/**
 * A service's handlers, the one binding style of every service: a plain object of transport-free
 * functions named as the generated <Service>Server interface names them (camelCase RPC names).
 * Unary ones answer (request, context, control) with a promise; server-streaming ones write to a
 * sink. grpc-js never reaches them: serviceImplementation adapts each one.
 */
export type ServiceHandlers = object;

/**
 * Binds a service's dependencies to handler functions written as (deps, request, context, ...):
 * withDeps(deps, { generate, transform }) is { generate: (request, context, control) => ... }.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function withDeps<D, F extends Record<string, (deps: D, ...args: any[]) => unknown>>(
  deps: D,
  handlers: F,
): {
  [K in keyof F]: F[K] extends (deps: D, ...args: infer A) => infer R ? (...args: A) => R : never;
} {
  const bound: Record<string, unknown> = {};
  for (const [name, handler] of Object.entries(handlers)) {
    bound[name] = (...args: unknown[]) => handler(deps, ...args);
  }
  return bound as never;
}

/**
 * The grpc-js implementation of a service from its handlers: unary or server-streaming adapters
 * chosen from the definition. A method without a handler fails here, at start-up.
 */
export function serviceImplementation(
  definition: ServiceDefinition,
  handlers: ServiceHandlers,
  logger: Logger,
): UntypedServiceImplementation {
  const implementation: UntypedServiceImplementation = {};
  const byName = handlers as Record<string, unknown>;
  for (const [name, method] of Object.entries(definition)) {
    const camel = method.originalName ?? name.charAt(0).toLowerCase() + name.slice(1);
    const handler = byName[camel];
    if (typeof handler !== 'function') throw new Error(`${method.path}: no handler named ${camel}`);
    implementation[name] = method.responseStream
      ? serverStream(logger, handler as StreamHandler<unknown, unknown>)
      : unary(logger, handler as UnaryHandler<unknown, unknown>);
  }
  return implementation;
}

export interface GrpcServiceBinding {
  /** Fully qualified name, e.g. switchyard.content.v1.ContentService, reported by health. */
  name: string;
  definition: ServiceDefinition;
  /** The service's handlers (see ServiceHandlers), adapted with startGrpcServer's logger. */
  handlers?: ServiceHandlers;
  /** @deprecated a grpc-js implementation built by hand: services move to handlers. */
  implementation?: UntypedServiceImplementation;
}

function implementationOf(
  service: GrpcServiceBinding,
  logger: Logger | undefined,
): UntypedServiceImplementation {
  if (service.handlers) {
    if (!logger) throw new Error(`${service.name}: startGrpcServer needs a logger for handlers`);
    return serviceImplementation(service.definition, service.handlers, logger);
  }
  if (service.implementation) return service.implementation;
  throw new Error(`${service.name}: neither handlers nor an implementation`);
}

export interface RunningGrpcServer {
  port: number;
  health: HealthReporter;
  /** Reports NOT_SERVING, lets calls in flight finish for up to graceMs, then forces. */
  stop(graceMs?: number): Promise<void>;
}

export async function startGrpcServer(options: {
  host: string;
  port: number;
  /**
   * A Unix socket path to listen on as well, for callers on the same host (the embedded mesh's
   * gateway): the same HTTP/2 without the TCP stack.
   * Callers in this very process that target it skip the socket too (in-process-channel.ts).
   */
  unixSocket?: string;
  services: GrpcServiceBinding[];
  /** Logs handler failures (a throw that is not an AppError is logged and answers "internal"). */
  logger?: Logger;
}): Promise<RunningGrpcServer> {
  // channelz (grpc-js's per-call tracing for its admin service, which no one here serves) is off:
  // it is bookkeeping on every call.
  const server = new Server({
    'grpc.max_receive_message_length': 16 * 1024 * 1024,
    'grpc.enable_channelz': 0,
  });
  const health = new HealthReporter();
  const healthImplementation = health.implementation();
  server.addService(protos.health().Health.service, healthImplementation);
  const services = options.services.map((service) => ({
    definition: service.definition,
    implementation: implementationOf(service, options.logger),
  }));
  for (const service of services) server.addService(service.definition, service.implementation);

  let port: number;
  try {
    port = await bind(server, `${options.host}:${options.port}`);
    if (options.unixSocket) await bind(server, `unix:${options.unixSocket}`);
  } catch (error) {
    server.forceShutdown();
    throw error;
  }
  const inProcess =
    options.unixSocket && inProcessGrpcOn()
      ? registerInProcessEndpoint(`unix:${options.unixSocket}`)
      : undefined;
  inProcess?.addService(protos.health().Health.service, healthImplementation);
  for (const service of services) inProcess?.addService(service.definition, service.implementation);
  health.set('', 'SERVING');
  for (const service of options.services) health.set(service.name, 'SERVING');
  // Each dependency this process uses, as its clients see it: the gateway's /readyz reads them.
  const stopReportingDependencies = dependencyHealth.watch((dependency, up) => {
    const name = dependencyHealthName(dependency);
    if (up === undefined) health.remove(name);
    else health.set(name, up ? 'SERVING' : 'NOT_SERVING');
  });

  return {
    port,
    health,
    stop: (graceMs = 5000) =>
      new Promise<void>((resolve) => {
        stopReportingDependencies();
        health.setAll('NOT_SERVING');
        inProcess?.close();
        const force = setTimeout(() => {
          server.forceShutdown();
          inProcess?.cancelAll();
          resolve();
        }, graceMs);
        force.unref();
        server.tryShutdown(() =>
          whenIdle(inProcess, () => {
            clearTimeout(force);
            resolve();
          }),
        );
      }),
  };
}
