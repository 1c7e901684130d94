import { EventEmitter } from 'node:events';
import {
  Metadata,
  status as GrpcStatus,
  type ServiceDefinition,
  type ServiceError,
  type StatusObject,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';

/**
 * The server half of the in-process transport (in-process-channel.ts has the client half): a gRPC
 * server that also serves a Unix socket registers its services here under that socket's address,
 * and a client of the same process that targets the address calls them without HTTP/2. The same
 * handler functions run as for a call from the socket, on server calls that have what they use of
 * grpc-js's (request, metadata, deadline, path, cancellation, write/drain/end, 'error').
 */

/** A server-side method as the in-process transport calls it. */
export interface InProcessMethod {
  path: string;
  responseStream: boolean;
  deserializeRequest(message: Buffer): unknown;
  serializeResponse(value: unknown): Buffer;
  // grpc-js's untyped handler: (call, callback) for unary methods, (call) for server streams.
  handler: (
    call: InProcessServerCall,
    callback?: (error: Partial<ServiceError> | null, value?: unknown, trailer?: Metadata) => void,
  ) => void;
}

/** Where a server call sends its messages and its final status: the client half of the call. */
export interface InProcessPeer {
  /** Queues a serialized message; false once the client has enough unread ones (backpressure). */
  push(message: Buffer): boolean;
  finish(status: StatusObject): void;
}

/** Unread messages above which write() answers false and the handler waits for 'drain'. */
export const IN_PROCESS_HIGH_WATER_MARK = 16;

export class InProcessEndpoint {
  private readonly methods = new Map<string, InProcessMethod>();
  // Array-backed (index kept on each call): a churning Set would keep finished calls reachable.
  private readonly active: InProcessServerCall[] = [];
  private open = true;
  private idleCallbacks: (() => void)[] = [];

  constructor(readonly address: string) {}

  addService(definition: ServiceDefinition, implementation: UntypedServiceImplementation): void {
    for (const [name, attrs] of Object.entries(definition)) {
      // Client and bidirectional streams are not served in-process: no service of the mesh has one.
      if (attrs.requestStream) continue;
      const fn =
        implementation[name] ??
        (typeof attrs.originalName === 'string' ? implementation[attrs.originalName] : undefined);
      if (!fn) continue;
      this.methods.set(attrs.path, {
        path: attrs.path,
        responseStream: attrs.responseStream,
        deserializeRequest: attrs.requestDeserialize,
        serializeResponse: attrs.responseSerialize as (value: unknown) => Buffer,
        handler: (fn as unknown as InProcessMethod['handler']).bind(implementation),
      });
    }
  }

  get serving(): boolean {
    return this.open;
  }

  method(path: string): InProcessMethod | undefined {
    return this.methods.get(path);
  }

  track(call: InProcessServerCall): void {
    call.slot = this.active.push(call) - 1;
  }

  untrack(call: InProcessServerCall): void {
    const last = this.active.pop()!;
    if (last !== call) {
      this.active[call.slot] = last;
      last.slot = call.slot;
    }
    call.slot = -1;
    if (this.active.length === 0) for (const callback of this.idleCallbacks.splice(0)) callback();
  }

  /** Calls back once no call is in flight (at once if none is). */
  whenIdle(callback: () => void): void {
    if (this.active.length === 0) callback();
    else this.idleCallbacks.push(callback);
  }

  /** Takes no more calls; those in flight go on. */
  close(): void {
    this.open = false;
    if (endpoints.get(this.address) === this) endpoints.delete(this.address);
  }

  /** Ends the calls still in flight as UNAVAILABLE (a forced shutdown). */
  cancelAll(): void {
    for (const call of [...this.active])
      call.abort({
        code: GrpcStatus.UNAVAILABLE,
        details: 'server shut down',
        metadata: new Metadata(),
      });
  }
}

const endpoints = new Map<string, InProcessEndpoint>();

/** Registers a server's services under the address its in-process callers use ("unix:/path"). */
export function registerInProcessEndpoint(address: string): InProcessEndpoint {
  const endpoint = new InProcessEndpoint(address);
  endpoints.set(address, endpoint);
  return endpoint;
}

/** The endpoint serving address in this process, if any. */
export function inProcessEndpoint(address: string): InProcessEndpoint | undefined {
  return endpoints.get(address);
}

/** A ServiceError (or what a handler passed as one) as the status the client sees. */
function statusOf(error: Partial<ServiceError>): StatusObject {
  return {
    code: typeof error.code === 'number' ? error.code : GrpcStatus.UNKNOWN,
    details: error.details ?? error.message ?? 'Unknown error',
    metadata: error.metadata ?? new Metadata(),
  };
}

/** A call as the server's handler sees it: what the shared adapters and health use of grpc-js's. */
export class InProcessServerCall extends EventEmitter {
  cancelled = false;
  slot = -1;
  private finished = false;

  constructor(
    readonly request: unknown,
    readonly metadata: Metadata,
    private readonly deadline: number,
    private readonly method: InProcessMethod,
    private readonly endpoint: InProcessEndpoint,
    private readonly peer: InProcessPeer,
  ) {
    super();
    // A streaming handler ends a failed stream by emitting 'error' with the status, as on grpc-js.
    this.on('error', (error: Partial<ServiceError>) => this.finish(statusOf(error)));
    endpoint.track(this);
  }

  getDeadline(): number {
    return this.deadline;
  }

  getPath(): string {
    return this.method.path;
  }

  getPeer(): string {
    return 'in-process';
  }

  sendMetadata(): void {
    // Initial metadata is always empty in-process: no handler here sends any.
  }

  /** Runs the handler; a unary handler's callback ends the call. */
  run(): void {
    try {
      if (this.method.responseStream) this.method.handler(this);
      else
        this.method.handler(this, (error, value, trailer) =>
          error ? this.finish(statusOf(error)) : this.respond(value, trailer),
        );
    } catch (error) {
      this.finish({
        code: GrpcStatus.INTERNAL,
        details: error instanceof Error ? error.message : String(error),
        metadata: new Metadata(),
      });
    }
  }

  write(chunk: unknown): boolean {
    if (this.finished) return false;
    return this.peer.push(this.method.serializeResponse(chunk));
  }

  end(trailer?: Metadata): void {
    this.finish({ code: GrpcStatus.OK, details: 'OK', metadata: trailer ?? new Metadata() });
  }

  /** The client cancelled or its deadline passed: the handler hears 'cancelled'. */
  cancel(): void {
    if (this.finished) return;
    this.finished = true;
    this.cancelled = true;
    this.endpoint.untrack(this);
    this.emit('cancelled', 'cancelled');
  }

  /** Ends the call from the server's side (shutdown) with status. */
  abort(status: StatusObject): void {
    if (this.finished) return;
    this.cancel();
    this.peer.finish(status);
  }

  /** The client read enough of a stream to take more. */
  drained(): void {
    if (!this.finished) this.emit('drain');
  }

  private respond(value: unknown, trailer?: Metadata): void {
    if (this.finished) return;
    let message: Buffer;
    try {
      message = this.method.serializeResponse(value);
    } catch (error) {
      this.finish({
        code: GrpcStatus.INTERNAL,
        details: `Error serializing response: ${(error as Error).message}`,
        metadata: new Metadata(),
      });
      return;
    }
    this.peer.push(message);
    this.finish({ code: GrpcStatus.OK, details: 'OK', metadata: trailer ?? new Metadata() });
  }

  private finish(status: StatusObject): void {
    if (this.finished) return;
    this.finished = true;
    this.endpoint.untrack(this);
    this.peer.finish(status);
  }
}
