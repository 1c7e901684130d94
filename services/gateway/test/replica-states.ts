import {
  connectRedis,
  createInMemorySharedState,
  createRedisSharedState,
  type SharedState,
} from '@switchyard/shared';
import { endpointOf, silentLogger, uniqueName } from '@switchyard/shared/testing';

/** The shared state two gateway replicas use: one in-memory instance, or two Redis connections. */
export interface SharedStates {
  a: SharedState;
  b: SharedState;
  close(): Promise<void>;
}

export async function redisStates(prefixBase: string): Promise<SharedStates> {
  const prefix = `${uniqueName(prefixBase)}:`;
  const url = endpointOf('redis')!;
  const a = createRedisSharedState(await connectRedis(url, silentLogger()), {
    prefix,
    ownsConnection: true,
  });
  const b = createRedisSharedState(await connectRedis(url, silentLogger()), {
    prefix,
    ownsConnection: true,
  });
  return { a, b, close: async () => void (await Promise.all([a.close(), b.close()])) };
}

export function memoryStates(): SharedStates {
  const state = createInMemorySharedState();
  return { a: state, b: state, close: () => state.close() };
}
