import type { ChannelCredentials, Client, MethodDefinition } from '@grpc/grpc-js';
import { callUnary, createClient } from './client';
import type { CallContext } from './context';
import { openServerStream } from './server-stream';

/** A service's promise-style client (the generated <Service>Rpc interface), its address, and close(). */
export type RpcClient<T> = T & {
  readonly address: string;
  /** Fully qualified service name (grpc.health.v1 checks use it). */
  readonly serviceName: string;
  close(): void;
};

type Invoke = (request: unknown, context: CallContext) => unknown;

/** What proto-loader's generated service constructors provide (the client class and its methods). */
type ServiceConstructor = (new (
  address: string,
  credentials: ChannelCredentials,
  options?: object,
) => Client) & {
  service: Record<string, MethodDefinition<unknown, unknown>>;
  serviceName?: string;
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyMethod = (...args: any[]) => any;

/**
 * Builds a service's client from its definition: one method per RPC, named as in the generated
 * <Service>Rpc interface (camelCase), unary calls as promises and server streams as ChunkStreams,
 * each with the caller's context in metadata and the deadline. Errors come back as AppErrors
 * carrying the downstream's code and details.
 */
export function createRpcClient<T>(
  constructor: ServiceConstructor,
  address: string,
  deadlineMs: number,
  /** Longer deadlines for methods that do long work (e.g. training a model), by method name. */
  methodDeadlinesMs: Partial<Record<keyof T & string, number>> = {},
): RpcClient<T> {
  const client: Client = createClient(constructor, address);
  const methods: Record<string, Invoke> = {};
  let serviceName = constructor.serviceName ?? '';
  for (const [name, spec] of Object.entries(constructor.service)) {
    serviceName = spec.path.split('/')[1] ?? serviceName;
    // "switchyard.content.v1.ContentService" -> "content", as error messages name it.
    const label = (serviceName.split('.').pop() ?? serviceName)
      .replace(/Service$/, '')
      .toLowerCase();
    const method = (client as unknown as Record<string, AnyMethod>)[name]!;
    const camel = spec.originalName ?? name.charAt(0).toLowerCase() + name.slice(1);
    const deadline = (methodDeadlinesMs as Record<string, number | undefined>)[camel] ?? deadlineMs;
    methods[camel] = spec.responseStream
      ? (request, context) => openServerStream(label, method, client, request, context, deadline)
      : (request, context) => callUnary(label, method, client, request, context, deadline);
  }
  return {
    ...methods,
    address,
    serviceName,
    close: () => client.close(),
  } as unknown as RpcClient<T>;
}
