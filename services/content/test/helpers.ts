import { expect } from 'chai';
import {
  AppError,
  InMemoryEventBus,
  Topics,
  type AnyEvent,
  type EventBus,
} from '@switchyard/shared';
import { RegistryConfigError, validateRegistry } from '../src/models/config/load-registry';

/** Subscribes a test group to the usage and results topics and collects what arrives. */
export async function collectEvents(bus: EventBus): Promise<AnyEvent[]> {
  const events: AnyEvent[] = [];
  await bus.subscribe({
    group: `test-${Math.random().toString(36).slice(2)}`,
    topics: [Topics.usage, Topics.results],
    handler: async (event) => {
      events.push(event);
    },
  });
  return events;
}

/** A bus that refuses every publish. */
export class BrokenBus extends InMemoryEventBus {
  override async publish(): Promise<void> {
    throw new Error('broker down');
  }
}

/** A bus that refuses publishes while down is set, then recovers (subscriptions keep working). */
export class FlakyBus extends InMemoryEventBus {
  down = true;
  refused = 0;

  override async publish(event: AnyEvent): Promise<void> {
    if (this.down) {
      this.refused++;
      throw new Error('broker down');
    }
    return super.publish(event);
  }
}

export function context(
  organization = 'org_a',
  requestId = `req_${Math.random().toString(36).slice(2)}`,
) {
  return { organization, keyId: 'key_1', requestId };
}

/** The problems a registry is rejected with (fails the test if it is accepted). */
export function registryProblems(raw: unknown, environment: NodeJS.ProcessEnv): string[] {
  try {
    validateRegistry(raw, 'test', environment);
  } catch (error) {
    expect(error).to.be.instanceOf(RegistryConfigError);
    return (error as RegistryConfigError).problems;
  }
  throw new Error('expected the registry to be rejected');
}

/** The AppError a promise rejects with (the test fails if it resolves or throws something else). */
export async function rejection(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    expect(error).to.be.instanceOf(AppError);
    return error as AppError;
  }
  throw new Error('expected a rejection');
}
