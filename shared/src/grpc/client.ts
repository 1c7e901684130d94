import { credentials, type Client, type Metadata, type ServiceError, type CallOptions } from '@grpc/grpc-js';
import { AppError } from '../errors/app-error';
import { contextToMetadata, type CallContext } from './context';
import { fromServiceError } from './errors';
import { protos } from './protos';
import { grpcClientMetricsInterceptor } from './client-metrics';
import { grpcClientTracingInterceptor } from '../tracing/grpc';
import { tracingEnabled } from '../tracing/tracing';
import { releaseClosedHttp2Streams } from './release-closed-streams';
import { steadyHttp2SessionTables } from './steady-session-tables';
import { installYoungAsyncResourceBind } from '../runtime/async-resource-bind';
import { withoutCallerStack } from './without-caller-stack';

type ClientConstructor<C> = new (address: string, creds: ReturnType<typeof credentials.createInsecure>, options?: object) => C;

export function createClient<C extends Client>(Ctor: ClientConstructor<C>, address: string): C {
  releaseClosedHttp2Streams();
  steadyHttp2SessionTables();
  installYoungAsyncResourceBind(); // Node's HTTP/2 client binds one function per request
  return new Ctor(address, credentials.createInsecure(), {
    'grpc.keepalive_time_ms': 30_000,
    'grpc.keepalive_timeout_ms': 10_000,
    'grpc.max_receive_message_length': 16 * 1024 * 1024,
    'grpc.enable_channelz': 0, // per-call tracing for an admin service no one serves (see server.ts)
    // Tracing is decided when the client is made: startTracing runs first in every process.
    interceptors: tracingEnabled() ? [grpcClientTracingInterceptor, grpcClientMetricsInterceptor] : [grpcClientMetricsInterceptor],
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
    withoutCallerStack(() =>
      method.call(client, request, contextToMetadata(context), { deadline: Date.now() + deadlineMs }, (error, response) => {
        if (error) reject(fromServiceError(error, serviceName));
        else if (response === undefined) reject(new AppError('internal', `${serviceName} returned no response`));
        else resolve(response);
      }),
    );
  });
}

/** grpc.health.v1 Check against a server; resolves to its status or "UNREACHABLE". */
export function checkHealth(address: string, service = '', deadlineMs = 1000): Promise<string> {
  const client = createClient(protos.health().Health, address);
  return new Promise<string>((resolve) => {
    client.Check({ service }, { deadline: Date.now() + deadlineMs }, (error, response) => {
      client.close();
      resolve(error || !response ? 'UNREACHABLE' : String(response.status));
    });
  });
}
