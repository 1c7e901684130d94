import {
  credentials,
  status as GrpcStatus,
  type Client,
  type Metadata,
  type ServiceError,
  type CallOptions,
} from '@grpc/grpc-js';
import { AppError } from '../errors/app-error';
import { contextToMetadata, type CallContext } from './context';
import { fromServiceError } from './errors';
import { protos } from './protos';
import { grpcClientMetricsInterceptor } from './client-metrics';
import { grpcClientTracingInterceptor } from '../tracing/grpc';
import { tracingEnabled } from '../tracing/tracing';
import { InProcessChannel } from './in-process-channel';
import { inProcessEndpoint } from './in-process-server';
import { inProcessGrpcOn } from './in-process';

type ClientConstructor<C> = new (
  address: string,
  creds: ReturnType<typeof credentials.createInsecure>,
  options?: object,
) => C;

/** The bounds of a client's reconnection backoff (grpc-js: 1 s growing to 120 s). */
export const GRPC_RECONNECT_BACKOFF_MS = { initial: 100, max: 1000 };

/**
 * A client of the service at address. When the entry point turned in-process calls on
 * (useInProcessGrpc) and a server of this process serves that address (its Unix socket), the
 * calls go to it in-process (in-process-channel.ts): the same interceptors, protobuf, metadata,
 * deadlines and statuses, without HTTP/2 and the socket.
 */
export function createClient<C extends Client>(Ctor: ClientConstructor<C>, address: string): C {
  const inProcess =
    inProcessGrpcOn() && inProcessEndpoint(address) ? new InProcessChannel(address) : undefined;
  return new Ctor(address, credentials.createInsecure(), {
    'grpc.keepalive_time_ms': 30_000,
    'grpc.keepalive_timeout_ms': 10_000,
    // While a service is down the channel tries to reconnect at least once a second (grpc-js
    // backs off to 120 s by default): after a restart that took a while, calls were still
    // refused for seconds after the service was back.
    'grpc.initial_reconnect_backoff_ms': GRPC_RECONNECT_BACKOFF_MS.initial,
    'grpc.max_reconnect_backoff_ms': GRPC_RECONNECT_BACKOFF_MS.max,
    'grpc.max_receive_message_length': 16 * 1024 * 1024,
    'grpc.enable_channelz': 0, // per-call tracing for an admin service no one serves (see server.ts)
    // Tracing is decided when the client is made: startTracing runs first in every process.
    interceptors: tracingEnabled()
      ? [grpcClientTracingInterceptor, grpcClientMetricsInterceptor]
      : [grpcClientMetricsInterceptor],
    ...(inProcess ? { channelOverride: inProcess } : {}),
  });
}

type UnaryMethod<Req, Res> = (
  request: Req,
  metadata: Metadata,
  options: CallOptions,
  callback: (error: ServiceError | null, response?: Res) => void,
) => unknown;

/**
 * One unary call with the caller's context in metadata and a deadline. Failures come back as
 * AppErrors carrying the downstream service's code and details.
 */
export function callUnary<Req, Res>(
  serviceName: string,
  method: UnaryMethod<Req, Res>,
  client: Client,
  request: Req,
  context: CallContext,
  deadlineMs: number,
): Promise<Res> {
  return new Promise<Res>((resolve, reject) => {
    // The callback runs inside grpc-js's own event handling, where a throw would reach the
    // process: whatever goes wrong while handling one answer fails that call only.
    const answered = (error: ServiceError | null, response?: Res) => {
      try {
        if (error) reject(fromServiceError(error, serviceName));
        else if (response === undefined)
          reject(new AppError('internal', `${serviceName} returned no response`));
        else resolve(response);
      } catch (caught) {
        reject(caught);
      }
    };
    method.call(
      client,
      request,
      contextToMetadata(context),
      { deadline: Date.now() + deadlineMs },
      answered,
    );
  });
}

/**
 * grpc.health.v1 Check against a server; resolves to its status, "SERVICE_UNKNOWN" for a name
 * the server does not report (NOT_FOUND, as the protocol says), or "UNREACHABLE".
 */
export function checkHealth(address: string, service = '', deadlineMs = 1000): Promise<string> {
  const client = createClient(protos.health().Health, address);
  return new Promise<string>((resolve) => {
    client.Check({ service }, { deadline: Date.now() + deadlineMs }, (error, response) => {
      client.close();
      if (error?.code === GrpcStatus.NOT_FOUND) resolve('SERVICE_UNKNOWN');
      else resolve(error || !response ? 'UNREACHABLE' : String(response.status));
    });
  });
}
