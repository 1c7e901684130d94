/** Helpers for tests of every package. Not used by production code. */
import { connectMongo, type MongoConnection } from '../adapters/mongo';
import { endpointOf, uniqueName, type BackendFixture } from './backends';

/** Polls until check returns a truthy value or timeoutMs passes. */
export async function waitFor<T>(
  check: () => T | Promise<T>,
  timeoutMs = 5000,
  intervalMs = 20,
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value) return value as NonNullable<T>;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) {
      throw new Error(`waitFor timed out after ${timeoutMs} ms${last ? `: ${String(last)}` : ''}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

export function silentLogger() {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const pino = require('pino') as typeof import('pino');
  return pino.default({ level: 'silent' });
}

/**
 * A fixture of one throw-away MongoDB database per test (dropped afterwards), for suites that run
 * only against MongoDB (e.g. a layout migration).
 */
export function freshMongoDatabase(prefix: string): BackendFixture<MongoConnection> {
  return {
    create: () => connectMongo(endpointOf('mongo')!, uniqueName(prefix), silentLogger()),
    async destroy(mongo) {
      await mongo.db.dropDatabase();
      await mongo.close();
    },
  };
}

export * from './backends';
export * from './fake-llm-server';
export * from './sse-client';
