import { randomUUID } from 'node:crypto';
import {
  credentials,
  type ChannelInterface,
  type Client,
  type ClientReadableStream,
  type ServiceError,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';
import { InProcessChannel } from './in-process-channel';
import { registerInProcessEndpoint } from './in-process-server';
import { protos } from './protos';

let inProcessCalls = false;

/**
 * Whether the servers of this process register for in-process calls and the clients of this
 * process call them in-process (in-process-channel.ts). Off unless an entry point turned it on.
 */
export function inProcessGrpcOn(): boolean {
  return inProcessCalls;
}

/**
 * Turns in-process gRPC calls on for this process (the embedded mesh calls it before it starts
 * its services): from then on a client whose address is a Unix socket served by this process
 * calls that server without HTTP/2. First checks that the installed grpc-js still drives the
 * in-process channel as it expects (checkInProcessChannel), so an upgrade that changed grpc-js's
 * Channel/Call contract fails the start, not a call.
 */
export async function useInProcessGrpc(): Promise<void> {
  if (inProcessCalls) return;
  await checkInProcessChannel();
  inProcessCalls = true;
}

/** Back to plain gRPC for the clients and servers made from now on (tests compare both). */
export function stopUsingInProcessGrpc(): void {
  inProcessCalls = false;
}

type HealthClient = Client & {
  check(
    request: object,
    options: { deadline: number },
    callback: (error: ServiceError | null, response?: { status: string }) => void,
  ): void;
  watch(request: object, options: { deadline: number }): ClientReadableStream<{ status: string }>;
};

const SELF_CHECK_MS = 2000;

/**
 * One unary call and one server stream of the health service through grpc-js's own client on an
 * in-process channel (makeChannel's), each call of grpc-js into the channel's Call checked to
 * exist: rejects with what differs when grpc-js no longer works with it.
 */
export async function checkInProcessChannel(
  makeChannel: (address: string) => ChannelInterface = (address) => new InProcessChannel(address),
): Promise<void> {
  const address = `unix:in-process-self-check-${randomUUID()}`;
  const endpoint = registerInProcessEndpoint(address);
  const Health = protos.health().Health;
  const selfCheck: UntypedServiceImplementation = {
    Check: (_call: unknown, callback: (error: null, value: object) => void) =>
      callback(null, { status: 'SERVING' }),
    Watch: (call: { write(value: object): boolean; end(): void }) => {
      call.write({ status: 'SERVING' });
      call.write({ status: 'NOT_SERVING' });
      call.end();
    },
  };
  endpoint.addService(Health.service, selfCheck);
  const missing: string[] = [];
  const client = new Health(address, credentials.createInsecure(), {
    channelOverride: strictChannel(makeChannel(address), missing),
  }) as unknown as HealthClient;
  const failed = (what: string, error: unknown) =>
    new Error(
      `in-process gRPC does not work with the installed @grpc/grpc-js (${what}: ${
        error instanceof Error ? error.message : String(error)
      }${missing.length ? `; grpc-js uses Call.${missing.join(', Call.')}, which the in-process channel lacks` : ''}); ` +
        'fix shared/src/grpc/in-process-channel.ts for this grpc-js, or set GRPC_IN_PROCESS=false',
    );
  const deadline = () => Date.now() + SELF_CHECK_MS;
  try {
    const unary = await new Promise<string | undefined>((resolve, reject) => {
      try {
        client.check({}, { deadline: deadline() }, (error, response) =>
          error ? reject(error) : resolve(response?.status),
        );
      } catch (error) {
        reject(error as Error);
      }
    }).catch((error: unknown) => {
      throw failed('unary call', error);
    });
    if (unary !== 'SERVING' || missing.length)
      throw failed('unary call', `answered ${String(unary)}`);
    const streamed = await new Promise<string[]>((resolve, reject) => {
      const received: string[] = [];
      try {
        const stream = client.watch({}, { deadline: deadline() });
        stream.on('data', (message: { status: string }) => received.push(message.status));
        stream.on('error', reject);
        stream.on('end', () => resolve(received));
      } catch (error) {
        reject(error as Error);
      }
    }).catch((error: unknown) => {
      throw failed('server stream', error);
    });
    if (streamed.join(',') !== 'SERVING,NOT_SERVING' || missing.length)
      throw failed('server stream', `received [${streamed.join(', ')}]`);
  } finally {
    client.close();
    endpoint.close();
  }
}

/** The channel, with every call it makes reporting what grpc-js reads of it that it lacks. */
function strictChannel(channel: ChannelInterface, missing: string[]): ChannelInterface {
  return new Proxy(channel, {
    get(target, property, receiver) {
      if (property !== 'createCall') return Reflect.get(target, property, receiver) as unknown;
      return (...args: Parameters<ChannelInterface['createCall']>) => {
        const call = target.createCall(...args);
        return new Proxy(call, {
          get(callTarget, name) {
            if (!(name in callTarget)) {
              if (typeof name === 'string' && !missing.includes(name)) missing.push(name);
              return undefined;
            }
            const value = Reflect.get(callTarget, name) as unknown;
            // Bound to the call itself: what it reads of its own state is not grpc-js's reading.
            return typeof value === 'function'
              ? (value as (...args: unknown[]) => unknown).bind(callTarget)
              : value;
          },
        });
      };
    },
  });
}
